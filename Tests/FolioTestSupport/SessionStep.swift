import PropertyBased

/// One step of a random session, as a property test's generator draws it:
/// which action (`roll`, 0..<100, each session maps ranges of it to its
/// actions) and the seed of a ``SeededGenerator`` for the step's own choices
/// (target, attribute, value).
///
/// A session is a list of steps, so a failing one shrinks to fewer steps,
/// each toward roll 0 and seed 0 (by convention the session's first action,
/// usually an insert), and is printed as that list instead of one seed.
public struct SessionStep: Sendable, CustomStringConvertible {
    /// Picks the action: each session maps ranges of 0..<100 to its actions.
    public var roll: Int
    /// Seeds the step's own choices.
    public var seed: UInt64

    /// A step with this action and these choices.
    public init(roll: Int, seed: UInt64) {
        self.roll = roll
        self.seed = seed
    }

    /// The pair, as a shrunk failure prints it.
    public var description: String { "(\(roll), \(seed))" }

    /// A random step: any roll, any seed.
    public static let generator = zip(Gen.int(in: 0...99), Gen.uint64(in: 0...UInt64.max))
        .map { SessionStep(roll: $0.0, seed: $0.1) }

    /// A fresh random source for the step's choices.
    public var choices: SeededGenerator { SeededGenerator(seed: seed) }
}
