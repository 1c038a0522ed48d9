import Foundation
import PropertyBased
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

@Suite struct GraphRoundTripPropertyTests {
    @Test("random schemas and graphs round-trip through a package unchanged and re-save byte for byte", .tags(.long))
    func randomRoundTrips() async throws {
        // The schema comes from a seed; the graph from one seed per object and edit, so
        // a failure shrinks to the fewest objects and edits that still fail.
        await checkProperty(count: TestEffort.cases(200), input: Gen.uint64(in: 0...UInt64.max), RandomGraphs.GraphPlan.generator) { seed, plan in
            var rng = SeededGenerator(seed: seed)
            let schema = RandomGraphs.schema(&rng)
            let graph = try RandomGraphs.graph(schema, plan)
            #expect(graph.invariantViolations().isEmpty, "schema seed \(seed)")
            let package = DocumentPackage(url: temporaryPackageURL())
            try package.write(graph)
            let back = try package.read()
            #expect(back.schema == schema, "schema seed \(seed)")
            #expect(back.snapshot() == graph.snapshot(), "schema seed \(seed)")
            #expect(back.invariantViolations().isEmpty, "schema seed \(seed)")
            let first = try packageDocument(package.url)
            try package.write(back)
            #expect(try packageDocument(package.url) == first, "schema seed \(seed)")
            try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent())
        }
    }
}
