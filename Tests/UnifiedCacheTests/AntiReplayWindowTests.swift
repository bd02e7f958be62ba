import Testing

@testable import UnifiedCache

@Suite("Anti-replay window: late messages applied once, replays and messages older than the window refused")
struct AntiReplayWindowTests {
    private let alpha = [UInt8](repeating: 1, count: 16)

    private func accept(_ windows: inout AntiReplayWindows, _ counter: UInt64, sender: [UInt8]? = nil) -> Bool {
        windows.accept(sender: sender ?? alpha, counter: counter, issuedAt: 1_000, now: 1_000, lifetime: 60_000)
    }

    @Test("counters in order are accepted once; the same counter again is a replay")
    func inOrder() {
        var windows = AntiReplayWindows()
        for counter in UInt64(1)...5 { #expect(accept(&windows, counter)) }
        for counter in UInt64(1)...5 { #expect(!accept(&windows, counter)) }
        #expect(accept(&windows, 6))
    }

    @Test("a counter delivered after a later one is accepted once, inside the window; a second copy is a replay")
    func reordered() {
        var windows = AntiReplayWindows()
        #expect(accept(&windows, 10))
        #expect(accept(&windows, 5))
        #expect(!accept(&windows, 5))
        #expect(accept(&windows, 7))
        #expect(!accept(&windows, 10) && !accept(&windows, 7))
        #expect(accept(&windows, 12))  // moving up keeps what the window saw
        #expect(!accept(&windows, 5) && !accept(&windows, 10) && accept(&windows, 11) && accept(&windows, 6))
    }

    @Test("the window is 128 counters wide: the oldest counter inside it is accepted, the one below refused")
    func edges() {
        var windows = AntiReplayWindows()
        #expect(accept(&windows, 200))
        #expect(accept(&windows, 200 - 127))
        #expect(!accept(&windows, 200 - 128))
        #expect(!accept(&windows, 1))
        // A jump past the window's width forgets everything below the new start.
        #expect(accept(&windows, 1_000))
        #expect(accept(&windows, 999))
        #expect(!accept(&windows, 1_000 - 128) && !accept(&windows, 200))
        #expect(accept(&windows, 1_000 - 127))
        // A jump by less than the width keeps the marks that stay inside.
        #expect(accept(&windows, 1_064))
        #expect(!accept(&windows, 999) && !accept(&windows, 1_000) && accept(&windows, 1_001))
        #expect(!accept(&windows, 1_064 - 128) && accept(&windows, 1_064 - 127))
        #expect(accept(&windows, UInt64.max) && !accept(&windows, UInt64.max) && accept(&windows, UInt64.max - 1))
    }

    @Test("senders have windows of their own")
    func perSender() {
        var windows = AntiReplayWindows()
        let beta = [UInt8](repeating: 2, count: 16)
        #expect(accept(&windows, 500))
        #expect(accept(&windows, 1, sender: beta))
        #expect(accept(&windows, 400) && !accept(&windows, 400) && !accept(&windows, 300))
        #expect(!accept(&windows, 1, sender: beta) && accept(&windows, 2, sender: beta))
    }

    @Test("windows are bounded; those whose sender went silent past the lifetime are forgotten first")
    func bounded() {
        var windows = AntiReplayWindows()
        var accepted = windows.accept(sender: alpha, counter: 6, issuedAt: 1_001, now: 1_001, lifetime: 60_000)
        #expect(accepted)
        for index in 1..<AntiReplayWindows.limit {
            let sender = withUnsafeBytes(of: index) { Array($0) } + [UInt8](repeating: 9, count: 8)
            accepted = windows.accept(sender: sender, counter: 1, issuedAt: 100_000, now: 100_000, lifetime: 60_000)
            #expect(accepted)
        }
        #expect(windows.windows.count == AntiReplayWindows.limit)
        let newcomer = [UInt8](repeating: 2, count: 16)
        accepted = windows.accept(sender: newcomer, counter: 1, issuedAt: 100_000, now: 100_000, lifetime: 60_000)
        #expect(accepted)
        #expect(windows.windows[alpha] == nil && windows.windows.count == AntiReplayWindows.limit)  // alpha expired
    }
}
