/// The counter and gauge samples of a Prometheus text exposition (0.0.4) as the hub writes it.
enum PrometheusTextSamples {
    enum Kind {
        case counter
        case gauge
    }

    struct Sample {
        var name: String
        var labels: [(String, String)]
        var value: Double
        var kind: Kind
    }

    /// Samples of families typed `counter` or `gauge`; others (summaries, untyped) and malformed lines are skipped.
    static func parse(_ text: String) -> [Sample] {
        var kinds: [Substring: Kind] = [:]
        var samples: [Sample] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 {
                    switch parts[3] {
                    case "counter": kinds[parts[2]] = .counter
                    case "gauge": kinds[parts[2]] = .gauge
                    default: break
                    }
                }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let sample = sample(line, kinds) else { continue }
            samples.append(sample)
        }
        return samples
    }

    private static func sample(_ line: Substring, _ kinds: [Substring: Kind]) -> Sample? {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
            return nil
        }
        let series = line[..<space]
        let name: Substring
        var labels: [(String, String)] = []
        if let brace = series.firstIndex(of: "{") {
            name = series[..<brace]
            guard series.hasSuffix("}"),
                let parsed = self.labels(series[series.index(after: brace)..<series.index(before: series.endIndex)])
            else { return nil }
            labels = parsed
        } else {
            name = series
        }
        guard let kind = kinds[name] else { return nil }
        return Sample(name: String(name), labels: labels, value: value, kind: kind)
    }

    /// `a="x",b="y"` with the exposition's escapes (`\\`, `\"`, `\n`).
    private static func labels(_ text: Substring) -> [(String, String)]? {
        var labels: [(String, String)] = []
        var rest = text
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"" else {
                return nil
            }
            let name = String(rest[..<equals])
            var value = ""
            var index = rest.index(equals, offsetBy: 2)
            var closed = false
            while index < rest.endIndex {
                let character = rest[index]
                if character == "\\", rest.index(after: index) < rest.endIndex {
                    index = rest.index(after: index)
                    value.append(rest[index] == "n" ? "\n" : rest[index])
                } else if character == "\"" {
                    closed = true
                    break
                } else {
                    value.append(character)
                }
                index = rest.index(after: index)
            }
            guard closed else { return nil }
            labels.append((name, value))
            rest = rest[rest.index(after: index)...]
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return labels
    }
}
