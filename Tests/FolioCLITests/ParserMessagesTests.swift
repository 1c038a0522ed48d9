import Foundation
import Testing
import FolioTestSupport

/// libxml2 prints some errors to stderr itself (its encoding layer has no parser
/// to report to); folio's stderr must carry folio's own error line only.
@Suite struct ParserMessagesTests {
    /// A package whose document declares EUC-JP and holds bytes that are no EUC-JP text.
    private func packageWithBadEncoding(in folder: TemporaryFolder) throws -> URL {
        let package = folder.url.appendingPathComponent("Bad.folio")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let head = """
            <?xml version="1.0" encoding="EUC-JP"?>
            <folio format="1" next-id="10">
              <schema>
                <entity name="Animal">
                  <attribute name="name" type="string"/>
                </entity>
              </schema>
              <objects>
                <Animal f.id="1" name="R
            """
        let tail = """
            x"/>
              </objects>
            </folio>

            """
        let bytes = Array(head.utf8) + [0xFF, 0xFE, 0xFD] + Array(tail.utf8)
        try Data(bytes).write(to: package.appendingPathComponent("document.xml"))
        return package
    }

    @Test("bytes not in the declared encoding: one folio error line on stderr, no libxml2 message")
    func badEncodingPrintsOnlyFolioError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let package = try packageWithBadEncoding(in: folder)
        let run = try runFolio([package.path], input: "count Animal\n", in: folder.url)
        #expect(run.status != 0)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "stderr: \(run.stderr)")
        #expect(lines.first?.contains("declared encoding") == true)
        #expect(!run.stderr.contains("encoding error :") && !run.stderr.contains("I/O error") && !run.stderr.contains("xmlParseChunk"))
    }
}
