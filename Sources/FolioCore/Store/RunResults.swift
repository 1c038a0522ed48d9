import Foundation

/// What each of several pieces of work run concurrently reports (its first
/// error), one slot per piece; the first in piece order is the one that counts,
/// so the outcome does not depend on which thread finished first.
final class RunResults<Result>: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ result: Result, at index: Int) { lock.withLock { results[index] = result } }

    /// The result of the first piece, in piece order, that reported one.
    func first() -> (index: Int, result: Result)? {
        lock.withLock {
            results.indices.lazy.compactMap { index in self.results[index].map { (index, $0) } }.first
        }
    }
}
