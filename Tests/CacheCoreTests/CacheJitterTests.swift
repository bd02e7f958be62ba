import Synchronization
import Testing

@testable import CacheCore

@Suite("Jitter on stored lifetimes")
struct CacheJitterTests {
    /// Deterministic random bits (SplitMix64) that count how often they were asked for.
    final class SeededBits: Sendable {
        private let state: Mutex<(value: UInt64, calls: Int)>

        init(seed: UInt64) { state = Mutex((seed, 0)) }

        var calls: Int { state.withLock { $0.calls } }

        @Sendable func next() -> UInt64 {
            state.withLock { state in
                state.calls += 1
                state.value &+= 0x9E37_79B9_7F4A_7C15
                var value = state.value
                value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
                value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
                return value ^ (value >> 31)
            }
        }
    }

    @Test("10,000 expiries of a 100 s entry spread over 0 to 10 s, never beyond, evenly")
    func spreadWithinBounds() {
        let bits = SeededBits(seed: 35)
        let jitter = CacheJitter(maxDuration: .seconds(10), random: bits.next)
        let extras = (0..<10_000).map { _ in jitter.extra(forLifetime: .seconds(100)) }
        #expect(extras.allSatisfy { $0 >= .zero && $0 <= .seconds(10) })
        // Spread, not bunched: both ends of the range are reached and every second of it is used about equally.
        #expect(extras.min()! < .milliseconds(10))
        #expect(extras.max()! > .milliseconds(9_990))
        var perSecond = [Int](repeating: 0, count: 10)
        for extra in extras { perSecond[min(9, Int(extra.components.seconds))] += 1 }
        #expect(perSecond.allSatisfy { (850...1_150).contains($0) }, "\(perSecond)")
        #expect(bits.calls == 10_000)
    }

    @Test("a share of the lifetime caps the absolute maximum for short entries")
    func fractionCaps() {
        let jitter = CacheJitter(maxDuration: .seconds(10), maxFraction: 0.1, random: SeededBits(seed: 1).next)
        #expect(jitter.bound(forLifetime: .seconds(30)) == .seconds(3))
        #expect(jitter.bound(forLifetime: .seconds(1_000)) == .seconds(10))
        let extras = (0..<10_000).map { _ in jitter.extra(forLifetime: .seconds(30)) }
        #expect(extras.allSatisfy { $0 >= .zero && $0 <= .seconds(3) })
        #expect(extras.max()! > .milliseconds(2_990))
    }

    @Test("a timeout gets the default resolved and the extra added; the result stays within the bound")
    func appliedToTimeouts() {
        let jitter = CacheJitter(maxDuration: .seconds(5), random: SeededBits(seed: 7).next)
        for _ in 0..<1_000 {
            guard case .seconds(let seconds) = jitter.applied(to: .seconds(60), default: .seconds(300)) else {
                Issue.record("not a lifetime in seconds")
                return
            }
            #expect(seconds >= 60 && seconds <= 65)
            guard case .seconds(let resolved) = jitter.applied(to: .useDefault, default: .seconds(300)) else {
                Issue.record("the default was not resolved")
                return
            }
            #expect(resolved >= 300 && resolved <= 305)
        }
    }

    @Test("zero means none: no extra and no random number drawn")
    func zeroIsNone() {
        let bits = SeededBits(seed: 2)
        let jitter = CacheJitter(maxDuration: .zero, random: bits.next)
        #expect(jitter.isNone)
        for _ in 0..<10_000 { #expect(jitter.extra(forLifetime: .seconds(100)) == .zero) }
        #expect(jitter.applied(to: .useDefault, default: .seconds(300)) == .useDefault)
        #expect(jitter.applied(to: .seconds(60), default: .seconds(300)) == .seconds(60))
        #expect(CacheJitter.none.isNone)
        #expect(bits.calls == 0)
    }

    @Test("never lengthened: an entry that must be revalidated, one that never expires, a nonsensical fraction")
    func notLengthened() {
        let bits = SeededBits(seed: 3)
        let jitter = CacheJitter(maxDuration: .seconds(10), random: bits.next)
        #expect(jitter.applied(to: .seconds(0), default: .seconds(300)) == .seconds(0))
        #expect(jitter.applied(to: .never, default: .seconds(300)) == .never)
        #expect(jitter.applied(to: .useDefault, default: .never) == .useDefault)
        for fraction in [0, -0.5, .nan, .infinity] {
            let odd = CacheJitter(maxDuration: .seconds(10), maxFraction: fraction, random: bits.next)
            #expect(odd.extra(forLifetime: .seconds(100)) == .zero)
        }
        #expect(bits.calls == 0)
    }
}
