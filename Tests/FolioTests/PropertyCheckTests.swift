import FolioTestSupport
import PropertyBased
import Synchronization
import Testing

/// `checkProperty`, which every property test here runs through: a case that
/// throws must fail the test, not vanish.
@Suite struct PropertyCheckTests {
    struct Refused: Error {}

    @Test func `a case that throws fails the check`() async {
        let runs = Mutex(0)
        await withKnownIssue {
            await checkProperty(count: 20, input: Gen.int(in: 0...9)) { value in
                runs.withLock { $0 += 1 }
                if value >= 0 { throw Refused() }
            }
        } matching: { issue in
            issue.error is Refused || issue.description.contains("fixedSeed")
        }
        // The first case throws and the check stops there (after shrinking it), naming
        // the seed; a swallowed throw would have run all twenty cases and passed.
        #expect(runs.withLock { $0 } < 20)
    }

    @Test func `a failing case shrinks through a bounded number of smaller inputs, then shows its issues once more`() async {
        let runs = Mutex(0)
        await withKnownIssue {
            // Every input fails: unbounded, the shrinker would try smaller lists down to one element.
            await checkProperty(count: 5, input: Gen.int(in: 0...1_000).array(of: 200...200)) { values in
                runs.withLock { $0 += 1 }
                #expect(values.isEmpty)
            }
        } matching: { _ in
            true
        }
        // The first case, at most the budget of smaller ones, and the final run of the smallest.
        #expect(runs.withLock { $0 } <= 1 + ShrinkBudget.candidates + 1)
        #expect(runs.withLock { $0 } > 2, "it shrank")
    }

    @Test func `every case runs when none throws, with up to four inputs`() async {
        let runs = Mutex(0)
        await checkProperty(count: 30, input: Gen.int(in: 0...9), Gen.bool, Gen.int(in: 1...2), Gen.uint64(in: 0...5)) { a, _, c, d in
            runs.withLock { $0 += 1 }
            #expect(a <= 9 && c >= 1 && d <= 5)
        }
        #expect(runs.withLock { $0 } == 30)
    }
}
