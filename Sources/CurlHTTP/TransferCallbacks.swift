import CCurl
import Foundation

/// libcurl's write and header callbacks. They run on the event-loop thread only, with the
/// `Transfer` passed unretained as user data (the waiting task keeps it alive while the handle is active).
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
        HeaderLines.record(UnsafeRawBufferPointer(start: data, count: length), of: transfer)
        return length
    }
}

/// The response's header lines: kept raw by the loop thread as libcurl delivers them, read by the waiting task
/// through ``CurlHTTPClient/Headers`` (see `ReceivedHeaderBlock`).
enum HeaderLines {
    /// Loop thread: keeps the lines of the latest response (after a redirect or a 1xx, only the final one's) in
    /// the handle's reusable buffer, one per `\n`, without their CRLF.
    static func record(_ line: UnsafeRawBufferPointer, of transfer: Transfer) {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end > 0 else { return }
        let content = UnsafeRawBufferPointer(rebasing: line[0..<end])

        let handle = transfer.handle
        if isStatusLine(content) {
            // A new response begins: keep only the final one's headers.
            handle.headerBytes.removeAll(keepingCapacity: true)
            transfer.attempts.receivedStatusLine()
            return
        }
        handle.appendHeaderLine(content)
        if transfer.body.isEmpty, let length = contentLength(content) {
            transfer.body.reserveCapacity(min(length, transfer.maximumResponseSize))
        }
    }

    /// Whether the line starts with `HTTP/`.
    static func isStatusLine(_ content: UnsafeRawBufferPointer) -> Bool {
        content.count >= 5 && content[0] == UInt8(ascii: "H") && content[1] == UInt8(ascii: "T")
            && content[2] == UInt8(ascii: "T") && content[3] == UInt8(ascii: "P") && content[4] == UInt8(ascii: "/")
    }

    /// The value of a `Content-Length` line (any case), if the line is one and its value a number.
    static func contentLength(_ content: UnsafeRawBufferPointer) -> Int? {
        let name: StaticString = "content-length:"
        let nameCount = name.utf8CodeUnitCount
        guard content.count > nameCount else { return nil }
        for offset in 0..<nameCount {
            let byte = content[offset]
            guard byte.lowercasedASCII == name.utf8Start[offset] else { return nil }
        }
        var index = nameCount
        while index < content.count, content[index] == UInt8(ascii: " ") || content[index] == UInt8(ascii: "\t") {
            index += 1
        }
        guard index < content.count else { return nil }
        var value = 0
        while index < content.count {
            let digit = Int(content[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        return value
    }
}
