import Foundation
import PropertyBased
import Testing

// `checkProperty`: PropertyBased's `propertyCheck`, with a thrown error
// recorded as a failure of the case that threw.
//
// `propertyCheck` runs each case under `try?`: a case that throws ends
// silently, counted neither as a failure nor as a pass, so a property whose
// setup throws for some inputs skips them unseen (a random-graph plan once
// skipped up to 250 cases a test that way). Recorded as an issue, the error
// fails the test and prints the seed that reproduces it, like any `#expect`.
//
// Shrinking is bounded: once a case has failed, at most
// `ShrinkBudget.candidates` smaller inputs are tried (each costs a whole run
// of the property, which for a session of saves is many files written). The
// smallest failing input found by then is reported, run once more with its
// issues shown. Unbounded, a failure of a heavy property on a loaded machine
// shrank for over an hour.

/// Runs `body` on `count` generated inputs; a thrown error fails the case.
public func checkProperty<InputValue, ResultValue>(
    count: Int = 100,
    input: Generator<ResultValue, some Sequence<InputValue>>,
    perform body: (ResultValue) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let budget = ShrinkBudget()
    await propertyCheck(
        count: count, input: input,
        perform: { value in
            let description = String(describing: value)
            guard budget.admits(description) else { return }
            let failed = await countsIssues(isolation: isolation) {
                do { try await body(value) } catch { Issue.record(error, sourceLocation: sourceLocation) }
            }
            if failed { budget.failed(description) }
        }, isolation: isolation, sourceLocation: sourceLocation)
}

/// How many smaller inputs a failed property check may still try.
public final class ShrinkBudget: @unchecked Sendable {
    /// The shrink candidates tried at most after the first failure.
    public static let candidates = 40
    private var failing: String?
    private var tried = 0

    /// Whether to run the case with input `description`: always before any
    /// failure, and for the smallest failing input (the final run that shows
    /// its issues); otherwise while the budget lasts. A case not run passes,
    /// which ends the shrinking.
    func admits(_ description: String) -> Bool {
        guard let failing else { return true }
        if description == failing { return true }
        tried += 1
        return tried <= Self.candidates
    }

    /// Notes that the case with input `description` failed.
    func failed(_ description: String) { failing = description }
}

/// Runs `body`, passing on every issue it records; whether it recorded any.
private func countsIssues(isolation: isolated (any Actor)?, _ body: () async -> Void) async -> Bool {
    // An issue may be recorded on another thread than the body's.
    let count = LockedCount()
    nonisolated(unsafe) let body = body
    let counter = IssueHandlingTrait.compactMapIssues { issue in
        count.increment()
        return issue
    }
    guard let test = Test.current else {
        await body()
        return false
    }
    try? await counter.provideScope(for: test, testCase: Test.Case.current) { await body() }
    return count.value > 0
}

private final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// ``checkProperty(count:input:perform:isolation:sourceLocation:)`` with two inputs.
public func checkProperty<InA, InB, OutA, OutB>(
    count: Int = 100,
    input g0: Generator<OutA, some Sequence<InA>>,
    _ g1: Generator<OutB, some Sequence<InB>>,
    perform body: (OutA, OutB) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    await checkProperty(
        count: count, input: zip(g0, g1), perform: { try await body($0.0, $0.1) },
        isolation: isolation, sourceLocation: sourceLocation)
}

/// ``checkProperty(count:input:perform:isolation:sourceLocation:)`` with three inputs.
public func checkProperty<InA, InB, InC, OutA, OutB, OutC>(
    count: Int = 100,
    input g0: Generator<OutA, some Sequence<InA>>,
    _ g1: Generator<OutB, some Sequence<InB>>,
    _ g2: Generator<OutC, some Sequence<InC>>,
    perform body: (OutA, OutB, OutC) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    await checkProperty(
        count: count, input: zip(g0, g1, g2), perform: { try await body($0.0, $0.1, $0.2) },
        isolation: isolation, sourceLocation: sourceLocation)
}

/// ``checkProperty(count:input:perform:isolation:sourceLocation:)`` with four inputs.
public func checkProperty<InA, InB, InC, InD, OutA, OutB, OutC, OutD>(
    count: Int = 100,
    input g0: Generator<OutA, some Sequence<InA>>,
    _ g1: Generator<OutB, some Sequence<InB>>,
    _ g2: Generator<OutC, some Sequence<InC>>,
    _ g3: Generator<OutD, some Sequence<InD>>,
    perform body: (OutA, OutB, OutC, OutD) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    await checkProperty(
        count: count, input: zip(g0, g1, g2, g3), perform: { try await body($0.0, $0.1, $0.2, $0.3) },
        isolation: isolation, sourceLocation: sourceLocation)
}
