import Testing
import UnifiedCache

@Suite("What the budget is charged per session follows what a session really costs")
struct SessionChargeTests {
    private let model = SessionCharge.measured

    @Test("a session is charged its own cost plus each part it made, and nothing for parts it never made")
    func totalsAddTheMadeParts() {
        #expect(model.total(rest: false, graphQL: false) == model.session)
        #expect(model.total(rest: true, graphQL: false) == model.session + model.rest)
        #expect(model.total(rest: true, graphQL: true) == model.session + model.rest + model.graphQL)
        #expect(
            model.total(rest: true, graphQL: true, accounts: true, cookieStore: true)
                == model.session + model.rest + model.graphQL + model.accounts + model.cookieStore)
    }

    @Test("each charge is within 20 % of the resident bytes measured for that kind of session")
    func chargesMatchTheMeasurements() {
        let measured = SessionCharge.measuredResidentBytes
        let pairs = [
            (model.total(rest: false, graphQL: false), measured.idle),
            (model.total(rest: true, graphQL: false), measured.rest),
            (model.total(rest: true, graphQL: true), measured.restAndGraphQL),
        ]
        for (charge, resident) in pairs {
            #expect(SessionCharge.deviation(ofCharge: charge, fromMeasured: resident) <= 0.2)
        }
    }

    @Test("the deviation is symmetric, and a charge against no measurement is infinitely off")
    func deviationIsAFractionOfTheMeasurement() {
        #expect(SessionCharge.deviation(ofCharge: 1_200, fromMeasured: 1_000) == 0.2)
        #expect(SessionCharge.deviation(ofCharge: 800, fromMeasured: 1_000) == 0.2)
        #expect(SessionCharge.deviation(ofCharge: 1_000, fromMeasured: 1_000) == 0)
        #expect(SessionCharge.deviation(ofCharge: 0, fromMeasured: 0) == 0)
        #expect(SessionCharge.deviation(ofCharge: 1, fromMeasured: 0) == .infinity)
    }
}
