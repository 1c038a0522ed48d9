import Foundation
import PropertyBased
import Testing
@testable import Folio
import PackageBytes

@Suite struct GraphRoundTripPropertyTests {
    @Test("random schemas and graphs round-trip through a package unchanged and re-save byte for byte")
    func randomRoundTrips() async throws {
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var rng = SplitMix64(seed: seed)
            let schema = RandomGraphs.schema(&rng)
            let graph = try RandomGraphs.graph(schema, &rng)
            #expect(graph.invariantViolations().isEmpty, "seed \(seed)")
            let package = DocumentPackage(url: temporaryPackageURL())
            try package.write(graph)
            let back = try package.read()
            #expect(back.schema == schema, "seed \(seed)")
            #expect(back.snapshot() == graph.snapshot(), "seed \(seed)")
            #expect(back.invariantViolations().isEmpty, "seed \(seed)")
            let first = try packageDocument(package.url)
            try package.write(back)
            #expect(try packageDocument(package.url) == first, "seed \(seed)")
            try? FileManager.default.removeItem(at: package.url.deletingLastPathComponent())
        }
    }
}
