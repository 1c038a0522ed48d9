import Foundation
import Testing

/// How hard the heaviest tests work.
///
/// A plain `swift test` runs the heaviest property tests on an eighth of
/// their cases, and leaves out the few tests whose point is their size (a
/// 100,000-term predicate, a 1 MB line, a Ctrl-C during a 100,000-row list),
/// so the whole suite stays under five minutes on a two-core machine that is
/// building other things. With `FOLIO_LONG_TESTS=1` they run every case and
/// every size; CI does that after the plain run (`Scripts/long-tests.sh`,
/// which `.ci/run` runs), so no test loses its power, only where it runs in
/// full.
public enum TestEffort {
    /// Whether `FOLIO_LONG_TESTS=1` asks for every case.
    public static let isLong = ProcessInfo.processInfo.environment["FOLIO_LONG_TESTS"] == "1"

    /// `full` when the long tests are asked for, otherwise an eighth of it
    /// (at least one).
    public static func cases(_ full: Int) -> Int {
        isLong ? full : max(1, full / 8)
    }
}

extension Tag {
    /// A test that does part of its work, or none, unless `FOLIO_LONG_TESTS=1`
    /// (see ``TestEffort``); `Scripts/long-tests.sh` runs their suites so.
    @Tag public static var long: Self
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only when `FOLIO_LONG_TESTS=1`: one whose point is its
    /// size, which a smaller run would not test. Give it `.tags(.long)` too,
    /// so `Scripts/long-tests.sh` finds its suite.
    public static var onlyInLongRuns: Self {
        .enabled(if: TestEffort.isLong, "a test of size: FOLIO_LONG_TESTS=1 runs it (Scripts/long-tests.sh)")
    }
}
