import Foundation

/// A saved package's document as one byte string, read without Folio's code:
/// `manifest.xml` followed by each part file it lists, in order (format 2),
/// or `document.xml` (format 1). Equal bytes mean an equal document. The
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
    let files = FileManager.default.enumerator(at: package, includingPropertiesForKeys: [.isRegularFileKey])?
        .compactMap { $0 as? URL } ?? []
    for file in files.sorted(by: { $0.path < $1.path })
    where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
        data += try Data(contentsOf: file)
    }
    return data
}
