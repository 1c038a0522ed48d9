/// A cancellation check for tests: it says "stop" from its `after + 1`th call
/// on, and counts its calls, so a test counts work instead of timing it.
public final class CancellationStopper: @unchecked Sendable {
    /// How many times the check was asked.
    public private(set) var calls = 0
    /// How many calls answer "go on" before the first "stop".
    public let after: Int

    public init(after: Int) { self.after = after }

    /// The check: `false` (go on) for the first `after` calls, then `true`.
    public func check() -> Bool {
        calls += 1
        return calls > after
    }
}
