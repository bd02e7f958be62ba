import Testing
import UnifiedCache

@Suite("UnifiedCacheError")
struct UnifiedCacheErrorTests {
    private struct Secret: Error, Sendable, CustomStringConvertible {
        var description: String { "Bearer token-alice" }
    }

    @Test("the description names the code, the place, the position and the message")
    func description() {
        let error = UnifiedCacheError(
            code: .invalidSettings,
            message: "expected true or false, got a string",
            place: "timeouts.enabled",
            line: 3,
            column: 17
        )

        #expect(
            error.description
                == "UnifiedCacheError.invalidSettings at timeouts.enabled (line 3, column 17): "
                + "expected true or false, got a string")
        #expect(
            UnifiedCacheError(code: .unknownDomain, message: "m").description == "UnifiedCacheError.unknownDomain: m")
    }

    @Test("the underlying error is kept but never printed")
    func underlyingNotPrinted() {
        let error = UnifiedCacheError(code: .settingsFileUnreadable, message: "cannot read", underlying: Secret())

        #expect(error.underlying is Secret)
        #expect(!error.description.contains("token-alice"))
        #expect(!String(describing: error).contains("token-alice"))
    }

    @Test("codes are distinct and print their stable names")
    func codes() {
        let codes: [UnifiedCacheError.Code] = [
            .invalidSettings, .settingsFileUnreadable, .invalidDomain, .unknownDomain, .duplicateDomain,
            .invalidMetrics, .partialClearFailure, .invalidValueRequest, .valueNotEncodable, .sessionEnded,
            .tokenRejected, .tokenVerificationUnavailable,
        ]

        #expect(Set(codes).count == codes.count)
        #expect(UnifiedCacheError.Code.partialClearFailure.description == "partialClearFailure")
        #expect(UnifiedCacheError.Code.tokenRejected.description == "tokenRejected")
    }
}
