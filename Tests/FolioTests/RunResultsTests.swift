import Dispatch
import Foundation
import Testing
import Folio
@testable import FolioCore

/// The results of work run concurrently: the first in piece order counts,
/// whichever thread reported first.
@Suite struct RunResultsTests {
    @Test("the first result in piece order is the one reported, whatever order the pieces report in")
    func firstInPieceOrder() {
        let results = RunResults<Int>(count: 64)
        #expect(results.first() == nil)
        // Every third piece reports, from many threads, the later pieces in any order.
        DispatchQueue.concurrentPerform(iterations: 64) { piece in
            if piece % 3 == 2 { results.set(piece * 10, at: piece) }
        }
        let first = results.first()
        #expect(first?.index == 2 && first?.result == 20)
        results.set(7, at: 0)
        #expect(results.first()?.index == 0 && results.first()?.result == 7)
    }
}
