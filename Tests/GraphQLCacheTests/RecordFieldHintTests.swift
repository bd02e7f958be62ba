import CacheCore
import GraphQLCache
import Testing

@Suite("A stored field keeps its upstream maxAge in whole seconds")
struct RecordFieldHintTests {
    private func field(_ maxAge: Double?) -> GraphQLRecordField {
        GraphQLRecordField(
            value: .reference("Account:1"), writtenAt: CacheInstant(nanoseconds: 0), upstreamMaxAge: maxAge)
    }

    @Test("whole seconds and no hint round-trip; a later write without a hint removes it")
    func roundTrip() {
        #expect(field(60).upstreamMaxAge == 60)
        #expect(field(0).upstreamMaxAge == 0)
        #expect(field(nil).upstreamMaxAge == nil)
        var hinted = field(300)
        hinted.upstreamMaxAge = nil
        #expect(hinted.upstreamMaxAge == nil)
        #expect(hinted == field(nil))
    }

    @Test("a fraction is dropped, a negative age is 0, a huge one is clamped and NaN is no hint")
    func outOfRangeAges() {
        #expect(field(59.9).upstreamMaxAge == 59)
        #expect(field(-5).upstreamMaxAge == 0)
        #expect(field(1e12).upstreamMaxAge == Double(UInt32.max - 1))
        #expect(field(.infinity).upstreamMaxAge == Double(UInt32.max - 1))
        #expect(field(.nan).upstreamMaxAge == nil)
    }
}
