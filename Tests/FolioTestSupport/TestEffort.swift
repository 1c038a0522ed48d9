import Foundation
import Testing

/// How hard the heaviest tests work.
///
/// A plain `swift test` runs them on a quarter of their cases, so the whole
/// suite stays under five minutes on a loaded two-core machine. With
/// `FOLIO_LONG_TESTS=1` they run every case; CI does that after the plain run
/// (`Scripts/long-tests.sh`, which `.ci/run` runs),
/// so no property loses its power, only where it is exercised in full.
public enum TestEffort {
    /// Whether `FOLIO_LONG_TESTS=1` asks for every case.
    public static let isLong = ProcessInfo.processInfo.environment["FOLIO_LONG_TESTS"] == "1"

    /// `full` when the long tests are asked for, otherwise a quarter of it
    /// (at least one).
    public static func cases(_ full: Int) -> Int {
        isLong ? full : max(1, full / 4)
    }
}

extension Tag {
    /// A test that does a quarter of its work unless `FOLIO_LONG_TESTS=1`
    /// (see ``TestEffort``); `Scripts/long-tests.sh` runs their suites so.
    @Tag public static var long: Self
}
