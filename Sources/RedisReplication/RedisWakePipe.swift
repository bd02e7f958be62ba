#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A self-pipe that wakes an event loop's poll() from any thread: the loop polls ``reader``, other threads call
/// ``wake()``. Both ends are non-blocking.
final class RedisWakePipe: Sendable {
    let reader: Int32
    private let writer: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        reader = fds[0]
        writer = fds[1]
    }

    deinit {
        close(reader)
        close(writer)
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)  // EAGAIN: the pipe is full, the loop wakes anyway
    }

    /// Empties the pipe (loop thread), so the next poll() sleeps until the next ``wake()``.
    func drain() {
        drainWakePipe(reader)
    }

    /// Sleeps in poll() until a ``wake()`` or `milliseconds` passed (loop thread).
    func wait(milliseconds: Int) {
        var descriptor = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32(milliseconds))
    }
}
