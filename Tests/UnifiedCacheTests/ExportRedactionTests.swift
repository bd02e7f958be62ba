import CacheCore
import Foundation
import Testing
import UnifiedCache

@Suite("Export redaction")
struct ExportRedactionTests {
    @Test("by default a value becomes its size in bytes")
    func redactedValues() {
        let redaction = ExportRedaction.redacted

        #expect(redaction.value(#"{"balance":2500}"#) == "<redacted 16 bytes>")
        #expect(redaction.value("é") == "<redacted 2 bytes>")
        #expect(redaction.value(Data([0, 1, 2])) == "<redacted 3 bytes>")
        #expect(redaction.value([UInt8]()) == "<redacted 0 bytes>")
    }

    @Test("values are shown only when asked for, binary ones as base64")
    func revealedValues() {
        let redaction = ExportRedaction(includesValues: true)

        #expect(redaction.value(#"{"balance":2500}"#) == #"{"balance":2500}"#)
        #expect(redaction.value(Array("héllo".utf8)) == "héllo")
        #expect(redaction.value(Data([0xFF, 0x00])) == "base64:/wA=")
        #expect(redaction.identifier("token-alice") != "token-alice")
    }

    @Test("identifiers become the fingerprints CacheCore prints in logs")
    func identifiers() {
        let redaction = ExportRedaction.redacted
        let session = "session-9f2c"

        #expect(redaction.scope(.session(session)) == CacheScope.session(session).description)
        #expect(redaction.scope(.shared) == CacheScope.shared.description)
        #expect(redaction.identifier("atok-101") == "#" + ExportRedaction.fingerprint(of: "atok-101"))
        #expect(ClearTarget.account("atok-101").description == "account(\(redaction.identifier("atok-101")))")
        #expect(!redaction.scope(.session(session)).contains(session))
    }

    @Test("the fingerprint is 32-bit FNV-1a in eight hex digits")
    func fingerprintVectors() {
        #expect(ExportRedaction.fingerprint(of: "") == "811c9dc5")
        #expect(ExportRedaction.fingerprint(of: "a") == "e40c292c")
        #expect(ExportRedaction.fingerprint(of: "foobar") == "bf9cf968")
        #expect(ExportRedaction.fingerprint(of: "alice") != ExportRedaction.fingerprint(of: "alicf"))
    }

    @Test("identifiers are shown only when asked for")
    func revealedIdentifiers() {
        let redaction = ExportRedaction.revealingEverything

        #expect(redaction.identifier("atok-101") == "atok-101")
        #expect(redaction.scope(.session("s-1")) == "session(s-1)")
        #expect(redaction.value("v") == "v")
    }

    @Test("REST keys keep their domain prefix and words; ids, emails and tokens become fingerprints")
    func restKeys() {
        let redaction = ExportRedaction.redacted
        let id = redaction.identifier("101")

        #expect(redaction.restKey("balances.101") == "balances.\(id)")
        #expect(redaction.restKey("userProfile.me") == "userProfile.me")
        #expect(
            redaction.restKey("userProfile.john.smith@bank.com")
                == "userProfile.\(redaction.identifier("john.smith@bank.com"))")
        #expect(
            redaction.restKey("cards.atok-101.list") == "cards.\(redaction.identifier("atok-101")).list")
        #expect(
            redaction.restKey("GET /api/accounts/101/transactions?page=2&pageSize=5")
                == "GET /api/accounts/\(id)/transactions?page=\(redaction.identifier("2"))&pageSize="
                + redaction.identifier("5"))
        #expect(redaction.restKey("statements.tok_9f8e7d6c") == "statements.\(redaction.identifier("tok_9f8e7d6c"))")
        // Letters only, but too long or too many capitals to be a word: an opaque token.
        #expect(!redaction.restKey("sessions.QzRtXwPbLmKvNcYd").contains("QzRtXwPbLmKvNcYd"))
        #expect(!redaction.restKey("sessions.abcdefghijklmnopqrstuvwxyz").contains("abcdefghijklmnopqrstuvwxyz"))
        #expect(
            redaction.restKey("offers.all\u{1E}vary:accept-language=fr") == "offers.all\u{1E}vary:accept-language=fr")
    }

    @Test("REST and record keys are shown as they are when identifiers are asked for")
    func revealedKeys() {
        let values = ExportRedaction(includesValues: true)
        #expect(values.restKey("balances.101") != "balances.101")
        #expect(values.recordKey("Account:101") == "Account:" + values.identifier("101"))
        #expect(values.recordKey("QUERY_ROOT") == "QUERY_ROOT")

        let everything = ExportRedaction.revealingEverything
        #expect(everything.restKey("userProfile.alice@example.com") == "userProfile.alice@example.com")
        #expect(everything.recordKey("Account:101") == "Account:101")
    }
}
