import Foundation

/// A saved package's document as one byte string, read without Folio's code:
/// `manifest.xml` followed by each part file it lists, in order (format 2),
/// or `document.xml` (format 1). Equal bytes mean an equal document.
public func packageDocument(_ package: URL) throws -> Data {
    let manifest = package.appendingPathComponent("manifest.xml")
    guard FileManager.default.fileExists(atPath: manifest.path) else {
        return try Data(contentsOf: package.appendingPathComponent("document.xml"))
    }
    var data = try Data(contentsOf: manifest)
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
