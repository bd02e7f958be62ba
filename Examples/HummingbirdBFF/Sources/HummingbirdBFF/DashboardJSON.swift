import Hummingbird

/// `GET /dashboard`'s answer written as JSON directly into the response buffer.
///
/// The dashboard is the route every page load hits; with its data cached, Foundation's `JSONEncoder` (its
/// generic keyed containers, for about 300 bytes) was the largest single cost of a request: about 11% of the
/// BFF's CPU under `wrk`, more than both cache reads together. Other routes keep `ResponseEncodable`. The
/// output is what `JSONEncoder` writes for `Dashboard` (numbers without a fraction print as integers), minus
/// key order, which JSON leaves open.
extension Dashboard: ResponseGenerator {
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var json = JSONBuffer(capacity: 64 + accounts.count * 160)
        json.append("{\"user\":")
        json.appendString(user)
        json.append(",\"accounts\":[")
        for (index, account) in accounts.enumerated() {
            json.append(index == 0 ? "{\"id\":" : ",{\"id\":")
            json.appendString(account.id)
            json.append(",\"name\":")
            json.appendString(account.name)
            json.append(",\"type\":")
            json.appendString(account.type)
            // Absent like JSONEncoder leaves a nil optional out, so the two outputs parse the same.
            if let balance = account.balance {
                json.append(",\"balance\":")
                json.appendNumber(balance)
            }
            if let availableBalance = account.availableBalance {
                json.append(",\"availableBalance\":")
                json.appendNumber(availableBalance)
            }
            json.append("}")
        }
        json.append("]}")
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json; charset=utf-8", .contentLength: String(json.buffer.readableBytes),
            ],
            body: ResponseBody(byteBuffer: json.buffer)
        )
    }
}

/// JSON text in a `ByteBuffer`: the few primitives the dashboard needs.
struct JSONBuffer {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBuffer()
        buffer.reserveCapacity(capacity)
    }

    /// Text that is already JSON.
    mutating func append(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    /// A JSON string: quoted, with `"`, `\` and control characters escaped (everything else is valid as UTF-8).
    mutating func appendString(_ value: String) {
        buffer.writeInteger(UInt8(ascii: "\""))
        var pending = value.utf8.startIndex
        for index in value.utf8.indices {
            let byte = value.utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            buffer.writeBytes(value.utf8[pending..<index])
            switch byte {
            case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                buffer.writeStaticString("\\u00")
                buffer.writeInteger(hex[Int(byte >> 4)])
                buffer.writeInteger(hex[Int(byte & 0x0F)])
            }
            pending = value.utf8.index(after: index)
        }
        buffer.writeBytes(value.utf8[pending...])
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    /// A JSON number: an integer when the value has no fraction (as `JSONEncoder` prints `2500.0`), `null` for
    /// NaN and the infinities, which JSON cannot carry.
    mutating func appendNumber(_ value: Double) {
        guard value.isFinite else {
            buffer.writeStaticString("null")
            return
        }
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            buffer.writeString(String(Int64(value)))
        } else {
            buffer.writeString(value.description)
        }
    }
}
