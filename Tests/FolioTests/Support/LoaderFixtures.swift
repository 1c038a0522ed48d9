import Foundation
import Testing
import Folio
@testable import FolioCore
import FolioTestSupport

/// Hand-written package folders for the loader tests: each lives in its own
/// temporary directory, removed when the test's closure returns.
enum LoaderFixtures {
    /// A fresh, empty directory under the system temporary directory.
    static func makeTemporaryDirectory() throws -> URL {
        try temporaryFolderURL("loader")
    }

    /// Creates `Test.folio` holding `document.xml` with exactly `bytes` (or no
    /// document at all when `bytes` is nil), calls `body`, then removes everything.
    static func withPackage<T>(
        bytes: [UInt8]?, blobs: [String: [UInt8]] = [:],
        _ body: (DocumentPackage) throws -> T
    ) throws -> T {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("Test.folio", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let bytes {
            try Data(bytes).write(to: folder.appendingPathComponent(DocumentPackage.documentFileName))
        }
        if !blobs.isEmpty {
            let blobFolder = folder.appendingPathComponent(DocumentPackage.blobsFolderName, isDirectory: true)
            try FileManager.default.createDirectory(at: blobFolder, withIntermediateDirectories: true)
            for (name, content) in blobs {
                try Data(content).write(to: blobFolder.appendingPathComponent(name))
            }
        }
        return try body(DocumentPackage(url: folder))
    }

    /// Same, with the document given as text.
    static func withPackage<T>(
        _ document: String, blobs: [String: [UInt8]] = [:],
        _ body: (DocumentPackage) throws -> T
    ) throws -> T {
        try withPackage(bytes: Array(document.utf8), blobs: blobs, body)
    }

    /// Reads the package and returns the error it is refused with; records an
    /// issue (and returns nil) when it loads.
    static func readFailure(
        _ package: DocumentPackage,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PackageError? {
        do {
            let graph = try package.read()
            Issue.record(
                "expected the package to be refused, but it loaded \(graph.count) objects",
                sourceLocation: sourceLocation)
            return nil
        } catch {
            if ProcessInfo.processInfo.environment["FOLIO_LOADER_TESTS_VERBOSE"] != nil {
                print("\(sourceLocation.fileName):\(sourceLocation.line): \(error)")
            }
            return error
        }
    }

    /// Writes `document` into a fresh package, reads it and returns the error.
    static func failure(of document: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> PackageError? {
        try withPackage(document) { readFailure($0, sourceLocation: sourceLocation) }
    }

    /// Same, with raw bytes.
    static func failure(ofBytes bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> PackageError? {
        try withPackage(bytes: bytes) { readFailure($0, sourceLocation: sourceLocation) }
    }

    /// The 1-based line of the first line of `text` containing `needle` (0 if none).
    static func line(of needle: String, in text: String) -> Int {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains(needle) {
            return index + 1
        }
        return 0
    }

    /// Checks that a location names the package's document file and a real line
    /// (`line` exactly, when given).
    static func expectLocation(
        _ location: PackageError.Location, isIn package: DocumentPackage? = nil, line: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            location.file.hasSuffix("Test.folio/" + DocumentPackage.documentFileName),
            "location file \(location.file)", sourceLocation: sourceLocation)
        if let package {
            #expect(location.file == package.documentPath, sourceLocation: sourceLocation)
        }
        #expect(location.line > 0, "location \(location) has no line", sourceLocation: sourceLocation)
        if let line {
            #expect(location.line == line, "location \(location), expected line \(line)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Documents

    /// The zoo schema: categories own animals (one-to-many), animals have values
    /// of several types, including an externally stored photo.
    static let zooSchema = """
          <schema>
            <entity name="AnimalCategory">
              <attribute name="name" type="string" unique="true"/>
              <relationship name="animals" destination="Animal" to-many="true" inverse="category" delete-rule="cascade"/>
            </entity>
            <entity name="Animal">
              <attribute name="name" type="string"/>
              <attribute name="age" type="int"/>
              <attribute name="legs" type="int8" optional="true"/>
              <attribute name="born" type="date" optional="true"/>
              <attribute name="tame" type="bool" optional="true"/>
              <attribute name="photo" type="data" optional="true" external-storage="true"/>
              <relationship name="category" destination="AnimalCategory" inverse="animals" delete-rule="nullify"/>
            </entity>
          </schema>
        """

    /// A society: people belong to clubs (many-to-many), each person has at most
    /// one passport (one-to-one), and people list favourite clubs (to-many, no inverse).
    static let societySchema = """
          <schema>
            <entity name="Person">
              <attribute name="name" type="string"/>
              <relationship name="clubs" destination="Club" to-many="true" inverse="members" delete-rule="nullify"/>
              <relationship name="passport" destination="Passport" inverse="owner" delete-rule="cascade"/>
              <relationship name="favorites" destination="Club" to-many="true" delete-rule="nullify"/>
            </entity>
            <entity name="Club">
              <attribute name="name" type="string"/>
              <relationship name="members" destination="Person" to-many="true" inverse="clubs" delete-rule="nullify"/>
            </entity>
            <entity name="Passport">
              <attribute name="number" type="string"/>
              <relationship name="owner" destination="Person" inverse="passport" delete-rule="nullify"/>
            </entity>
          </schema>
        """

    /// A whole document: prolog, `<folio>` root, the schema and the given object lines.
    static func document(schema: String = zooSchema, nextID: String? = "100", objects: String) -> String {
        let nextIDAttribute = nextID.map { " next-id=\"\($0)\"" } ?? ""
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <folio format="1"\(nextIDAttribute)>
            \(schema)
              <objects>
            \(objects)
              </objects>
            </folio>

            """
    }

    /// A valid zoo document: a category with two animals.
    static let validZoo = document(
        objects: """
                <AnimalCategory f.id="1" name="Mammal" animals="2 3"/>
                <Animal f.id="2" name="Rex" age="3" category="1"/>
                <Animal f.id="3" name="Tom" age="2" legs="4" tame="true" category="1"/>
            """)
}
