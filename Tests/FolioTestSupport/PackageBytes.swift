import Foundation

/// A saved package's document as one byte string, read without Folio's code:
/// `manifest.xml` followed by each part file (format 3: every file named
/// `parts/ENTITY/LANE-BUCKET.xml`, by path; format 2: each file the manifest
/// lists, in order), or `document.xml` (format 1). Equal bytes mean an equal document. The
/// manifest's `<history>` list, the root's identifier counter (`next-id`) and
/// its `supersedes` (the format-1 document a save replaced) are left out: they
/// record how the document came to be (what was done, which identifiers were
/// ever handed out), not what it holds.
public func packageDocument(_ package: URL) throws -> Data {
    let manifest = package.appendingPathComponent("manifest.xml")
    guard FileManager.default.fileExists(atPath: manifest.path) else {
        let document = package.appendingPathComponent("document.xml")
        // A package no save has written yet (a save with nothing to write writes nothing) holds no bytes.
        guard FileManager.default.fileExists(atPath: document.path) else { return Data() }
        return try Data(contentsOf: document)
    }
    var inHistory = false
    let kept = String(decoding: try Data(contentsOf: manifest), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        .map { line in
            guard line.hasPrefix("<folio ") else { return line }
            var root = String(line)
            for attribute in [#" next-id="[0-9]*""#, #" supersedes="[0-9a-f]*""#] {
                if let range = root.range(of: attribute, options: .regularExpression) { root.replaceSubrange(range, with: "") }
            }
            return root[...]
        }
        .filter { line in
            if line.hasPrefix("  <history ") { inHistory = true }
            defer { if line == "  </history>" { inHistory = false } }
            return !inHistory && line != "  </history>"
        }
    var data = Data(kept.joined(separator: "\n").utf8)
    if String(decoding: data.prefix(200), as: UTF8.self).contains("<folio format=\"3\"") {
        // Format 3: every part file, by path (entity folder, then lane and bucket).
        // A part left without objects is kept on disk (format 3 never removes one) but holds nothing.
        for path in formatThreeParts(package) {
            let part = try Data(contentsOf: package.appendingPathComponent(path))
            if String(decoding: part, as: UTF8.self).split(separator: "\n").count > 3 { data += part }
        }
        return data
    }
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.contains("<part ") {
        guard let start = line.range(of: "file=\"") else { continue }
        let name = line[start.upperBound...].prefix { $0 != "\"" }
        data += try Data(contentsOf: package.appendingPathComponent("parts/" + name))
    }
    return data
}

/// ``packageDocument(_:)`` as text.
public func packageText(_ package: URL) throws -> String {
    String(decoding: try packageDocument(package), as: UTF8.self)
}

/// Every byte of every file under a package folder (any folder, hidden files
/// included), in path order: to check that something is in no file at all.
public func allPackageBytes(_ package: URL) throws -> Data {
    var data = Data()
    let files =
        FileManager.default.enumerator(at: package, includingPropertiesForKeys: [.isRegularFileKey])?
        .compactMap { $0 as? URL } ?? []
    for file in files.sorted(by: { $0.path < $1.path })
    where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
        data += try Data(contentsOf: file)
    }
    return data
}

/// The package-relative paths of a format-3 package's part files
/// (`parts/ENTITY/LLLLLLLL-BBBB.xml`), sorted; temporaries and other names left out.
public func formatThreeParts(_ package: URL) -> [String] {
    let parts = package.appendingPathComponent("parts")
    let entities = (try? FileManager.default.contentsOfDirectory(atPath: parts.path)) ?? []
    var paths: [String] = []
    for entity in entities.sorted() {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: parts.appendingPathComponent(entity).path)) ?? []
        for file in files.sorted() where file.range(of: #"^[0-9a-f]{8}-[0-9a-f]{4,5}\.xml$"#, options: .regularExpression) != nil {
            paths.append("parts/" + entity + "/" + file)
        }
    }
    return paths
}
