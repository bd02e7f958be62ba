import Testing

@testable import CurlHTTP

/// Header lists compare by their fields in order; a list compared with itself (the credentials a session holds,
/// handed back on the next request) is equal without a field-by-field walk, and that shortcut never makes
/// different lists equal.
@Suite("Header equality")
struct HeadersEqualityTests {
    private static let bearer: CurlHTTPClient.Headers = ["Authorization": "Bearer token-1", "X-Tenant": "acme"]

    @Test("headers sharing one storage are equal, and so are headers built apart with the same fields")
    func equalLists() {
        let copy = Self.bearer
        #expect(copy == Self.bearer)
        let rebuilt: CurlHTTPClient.Headers = ["Authorization": "Bearer token-1", "X-Tenant": "acme"]
        #expect(rebuilt == Self.bearer)
        let received = CurlHTTPClient.Headers(
            received: ReceivedHeaderBlock(copying: Array("Authorization: Bearer token-1\nX-Tenant: acme\n".utf8)))
        #expect(received == Self.bearer)
    }

    @Test("a copy changed in one value, one name or the order is no longer equal to the original")
    func changedCopies() {
        var refreshed = Self.bearer
        refreshed.replaceOrAdd(name: "Authorization", value: "Bearer token-2")
        #expect(refreshed.count == Self.bearer.count)
        #expect(refreshed != Self.bearer)
        var renamed = Self.bearer
        renamed.remove(name: "X-Tenant")
        renamed.add(name: "X-Team", value: "acme")
        #expect(renamed != Self.bearer)
        let reordered: CurlHTTPClient.Headers = ["X-Tenant": "acme", "Authorization": "Bearer token-1"]
        #expect(reordered != Self.bearer)
        #expect(CurlHTTPClient.Headers() != Self.bearer)
        #expect(CurlHTTPClient.Headers() == CurlHTTPClient.Headers([]))
    }

    @Test("lists built apart differ when one value at the same place differs, or one list has a field more")
    func listsBuiltApartCompareEveryField() {
        let otherTenant: CurlHTTPClient.Headers = ["Authorization": "Bearer token-1", "X-Tenant": "acmf"]
        #expect(otherTenant != Self.bearer)
        let otherName: CurlHTTPClient.Headers = ["Authorization": "Bearer token-1", "X-Tenanu": "acme"]
        #expect(otherName != Self.bearer)
        let longer: CurlHTTPClient.Headers = ["Authorization": "Bearer token-1", "X-Tenant": "acme", "X-Team": "a"]
        #expect(longer != Self.bearer)
        #expect(Self.bearer != longer)
    }
}
