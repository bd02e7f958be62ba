import CacheCore
import Foundation
import GraphQLCache

/// A response body as an upstream (or a second-level value) hands it to the REST door: the fast JSON decoder must
/// give exactly what Foundation's `JSONDecoder` gives, the same value or a failure, for a loosely-typed reader that
/// tries every kind in turn, catching the errors on the way (`GraphQLJSON`'s), and for a typed answer.
enum JSONDecodingFuzzTarget {
    static func run(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        let data = Data(input)
        compare(GraphQLJSON.self, data, &violations)
        compare(Answer.self, data, &violations)
        compare([Answer].self, data, &violations)
        return violations.list
    }

    private static func compare<T: Decodable & Equatable>(_ type: T.Type, _ data: Data, _ violations: inout Violations)
    {
        let fast = try? JSONFastDecoder.decode(type, from: data, as: JSONDecoder())
        let foundation = try? JSONDecoder().decode(type, from: data)
        violations.expect(
            fast == foundation,
            "as \(type): the fast decoder gave \(String(describing: fast)), Foundation \(String(describing: foundation))"
        )
    }

    /// A typed answer: scalars of every width, optionals, nested containers, the types Foundation reads its own way.
    struct Answer: Decodable, Equatable {
        let id: Int
        let name: String?
        let small: Int8?
        let unsigned: UInt16?
        let ratio: Float?
        let balance: Double?
        let flags: [Bool]?
        let limits: [String: Int64]?
        let logo: Data?
        let site: URL?
        let opened: Date?
        let children: [Answer]?
    }

    static func seeds() -> [(name: String, bytes: [UInt8])] {
        [
            (
                "answer",
                #"{"id":1,"name":"a","small":-8,"unsigned":65535,"ratio":0.5,"balance":1.25,"flags":[true,false],"limits":{"day":5},"logo":"aGk=","site":"https://a.example/b","opened":10.5,"children":[{"id":2}]}"#
            ),
            ("answers", #"[{"id":1},{"id":-9223372036854775808,"name":null,"children":[]}]"#),
            ("escapes", #"{"id":0,"name":"\u00e9\ud83d\ude00\n\"\\\/","limits":{"\u212A":1,"K":2}}"#),
            ("numbers", "[0,-0,1.0,1e2,-1.5e-3,9223372036854775808,1e400,4.9e-324,0.1]"),
            ("mixed", #"{"a":[null,true,{"b":"c"}],"d":{"e":[1,2.5,"x"]}}"#),
            ("trailing", #"{"id":1,}"#),
        ].map { ($0.0, Array($0.1.utf8)) }
    }
}
