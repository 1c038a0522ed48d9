import Foundation
import Testing
@testable import Folio
import FolioTestSupport

@Suite struct IdentifierIndexTests {
    @Test("identifiers stored sparsely stay findable after the dense array grows past them")
    func sparseThenDense() {
        var index = IdentifierIndex()
        index[1_000_000] = ObjectRef(entity: 0, row: 0)  // far beyond the count: goes to the dictionary
        for id in 1...300_000 as ClosedRange<UInt64> { index[id] = ObjectRef(entity: 0, row: Int(id)) }
        index[1_000_001] = ObjectRef(entity: 0, row: 1)
        for id in 300_001...1_100_000 as ClosedRange<UInt64> where id != 1_000_000 && id != 1_000_001 {
            index[id] = ObjectRef(entity: 1, row: 0)
        }
        #expect(index[1_000_000] == ObjectRef(entity: 0, row: 0))
        #expect(index[1_000_001] == ObjectRef(entity: 0, row: 1))
        #expect(index.count == 1_100_000)
        index[1_000_000] = nil
        #expect(index[1_000_000] == nil && index.count == 1_099_999)
    }

    @Test("a package whose oldest objects were deleted reopens with every survivor")
    func oldestDeletedReopens() throws {
        let graph = ObjectGraph(schema: try zooSchema())
        let ids = try (0..<100_000).map { _ in try graph.insert("Animal") }
        for id in ids.prefix(70_000) { try graph.remove(id) }
        let package = DocumentPackage(url: temporaryPackageURL())
        try package.write(graph)
        let back = try package.read()
        #expect(back.count == 30_000)
        #expect(ids.suffix(30_000).allSatisfy(back.contains))
    }
}
