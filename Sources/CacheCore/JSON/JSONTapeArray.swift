/// Arrays the tape decodes itself: the same elements at the same coding paths as `Array.init(from:)` gives (an
/// unkeyed container read to its end), without that generic path's existential container, growing appends and
/// array metadata looked up per element. Answers are mostly lists, so this is most of a decode's elements.
protocol JSONTapeArray {
    static func decode(fromTape decoder: JSONTapeDecoder, array token: Int) throws -> Self
}

extension Array: JSONTapeArray where Element: Decodable {
    static func decode(fromTape decoder: JSONTapeDecoder, array token: Int) throws -> [Element] {
        let array = decoder.tokens[token]
        guard array.kind == .array else { throw decoder.refuse() }
        let count = Int(array.length)
        var elements: [Element] = []
        elements.reserveCapacity(count)
        let depth = decoder.pathStack.count
        let elementsMayBeArrays = Element.self is any JSONTapeArray.Type
        var cursor = token + 1
        for index in 0..<count {
            elements.append(
                try decoder.decode(
                    Element.self, at: cursor, key: JSONIndexKey(index: index), depth: depth, extra: [],
                    mayBeArray: elementsMayBeArrays))
            cursor = Int(decoder.tokens[cursor].end)
        }
        return elements
    }
}
