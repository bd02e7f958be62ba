import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process for tests, started with `posix_spawn` instead of Foundation's `Process`.
///
/// Foundation's `Process.run` (swift-corelibs-foundation) lists `/proc/self/fd` to close inherited descriptors and
/// copies 256 bytes of every entry's name, reading past `readdir`'s 32 KiB buffer once the test process has about
/// 1,300 descriptors open; late in a full test run that crashed the process (SIGSEGV in `memcpy`). Here the child
/// closes what it inherited itself: a `bash` prologue closes every descriptor above 2, then `exec`s the program.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The write end of the child's standard input, when ``spawn(_:_:environment:standardInput:standardOutput:)``
    /// was asked for one (closing it sends the child end-of-file).
    public let input: FileHandle?
    /// The read end of the child's standard output and standard error, when asked for.
    public let output: FileHandle?

    private init(pid: pid_t, input: FileHandle?, output: FileHandle?) {
        self.pid = pid
        self.input = input
        self.output = output
    }

    /// Starts `executable` with `arguments`; `standardInput`/`standardOutput` give it pipes to this process (else
    /// `/dev/null`), standard error going where standard output goes.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput: Bool = false, standardOutput: Bool = false
    ) throws -> ChildProcess {
        let closeInherited =
            "for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ \"$fd\" -gt 2 ] 2>/dev/null && eval \"exec $fd>&-\"; done; "
            + "exec \"$0\" \"$@\""
        let argv = ["/bin/bash", "-c", closeInherited, executable] + arguments
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        if standardInput {
            try makePipe(&inputPipe)
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if standardOutput {
            try makePipe(&outputPipe)
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }

        var pid: pid_t = 0
        let status = withCStrings(argv) { argvPointers in
            withCStrings(env) { envPointers in
                posix_spawn(&pid, "/bin/bash", &actions, nil, argvPointers, envPointers)
            }
        }
        if standardInput { close(inputPipe[0]) }
        if standardOutput { close(outputPipe[1]) }
        guard status == 0 else {
            if standardInput { close(inputPipe[1]) }
            if standardOutput { close(outputPipe[0]) }
            throw FixtureError("posix_spawn of \(executable) failed (\(status))")
        }
        return ChildProcess(
            pid: pid,
            input: standardInput ? FileHandle(fileDescriptor: inputPipe[1], closeOnDealloc: true) : nil,
            output: standardOutput ? FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true) : nil)
    }

    /// Waits for the child to exit and returns its exit status (128 + the signal when a signal ended it).
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }
}

/// Runs `body` with a NULL-terminated C array of copies of `strings`.
private func withCStrings<Result>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
) -> Result {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}

/// A pipe whose ends close on exec (the child gets its ends through dup2, which clears the flag).
private func makePipe(_ fds: inout [Int32]) throws {
    guard pipe(&fds) == 0 else { throw FixtureError("pipe failed") }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
}
