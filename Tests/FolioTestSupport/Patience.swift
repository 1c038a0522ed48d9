import Foundation

/// How long a test waits for a program before it calls it stuck.
///
/// A wait ends as soon as what it waits for arrives, so a passing test never
/// spends this; it bounds only a program that has hung. The bound is far past
/// any linear run: CI shares two cores with other builds, and a shorter limit
/// there fails tests whose programs were merely starved (a terminal session
/// once printed nothing in ten seconds while the rest of the suite ran).
public enum Patience {
    /// Seconds before a wait for a program's output or exit gives up.
    public static let seconds: TimeInterval = 300
}
