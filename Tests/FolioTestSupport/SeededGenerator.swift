/// SeededGenerator (Steele, Lea and Flood, 2014): a small, fast, reproducible random
/// source, for tests whose randomness must replay from a seed (a crash test's
/// kill delays, a generator inside a property test's case).
///
/// The only copy in the tests: an earlier one in FolioModelTests multiplied by
/// `0x94D1_049B_B133_111E` instead of `0x94D0_49BB_1331_11EB`. That constant is
/// even, so the mixing was no longer a bijection: every output had bit 0 ⊕ bit 31
/// ⊕ bit 62 = 0, half of all 64-bit values (1, −1, `UInt64.max`…) could never be
/// drawn, and the Codable round trip's raw bit patterns (`Double(bitPattern:)`,
/// `Int64(bitPattern:)`) covered half the space they claimed to.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The generator's state; the next output is a function of it alone.
    public var state: UInt64

    /// A generator whose outputs are fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
