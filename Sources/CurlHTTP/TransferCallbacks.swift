import CCurl
import Foundation

/// libcurl's write and header callbacks. They run on the event-loop thread only, with the
/// `Transfer` passed unretained as user data (the loop keeps it alive while the handle is active).
enum TransferCallbacks {
    static let body: curl_write_callback = { data, size, count, userData in
        guard let data, let userData else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.maximumResponseSize else {
            transfer.exceededMaximumSize = true
            return ucc_write_abort  // aborts the transfer now, not after the whole body arrived
        }
        data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            transfer.body.append(bytes, count: length)
        }
        return length
    }

    static let header: curl_write_callback = { data, size, count, userData in
        guard let data, let userData else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        let length = size * count
        let line = UnsafeRawBufferPointer(start: data, count: length)
        HeaderLineParser.consume(line, into: transfer)
        return length
    }
}

/// Parses one raw header line as libcurl delivers it (terminated by CRLF).
enum HeaderLineParser {
    static func consume(_ line: UnsafeRawBufferPointer, into transfer: Transfer) {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end > 0 else { return }
        let content = UnsafeRawBufferPointer(rebasing: line[0..<end])

        if content.starts(with: "HTTP/".utf8) {
            // A new response begins (after a redirect or a 1xx): keep only the final one's headers.
            transfer.responseHeaders = CurlHTTPClient.Headers()
            transfer.attempts.receivedStatusLine()
            return
        }
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: content[0..<colon], as: UTF8.self)
        var valueStart = colon + 1
        while valueStart < end, content[valueStart] == UInt8(ascii: " ") || content[valueStart] == UInt8(ascii: "\t") {
            valueStart += 1
        }
        let value = String(decoding: content[valueStart..<end], as: UTF8.self)
        transfer.responseHeaders.add(name: name, value: value)
        if name.equalsIgnoringASCIICase("content-length"), let length = Int(value), transfer.body.isEmpty {
            transfer.body.reserveCapacity(min(length, transfer.maximumResponseSize))
        }
    }
}
