import Foundation

/// A new folder under the system's temporary directory, removed when the value
/// is released (or at once by ``remove()``).
///
/// Every test target makes its folders here, under one folder per test process
/// (`folio-tests-PID`), which is removed when the process exits: a folder a
/// test never releases (a package URL handed to code under test) does not
/// outlive the run.
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder; it exists until the value is released.
    public let url: URL

    /// Creates the folder; `label` starts its name, to tell in a listing which test made it.
    public init(_ label: String = "folder") throws {
        url = try makeTemporaryFolder(label)
    }

    /// `name` inside the folder (nothing is created).
    public func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// A copy of `SampleDocuments/NAME` (a package, or any file there) in this folder.
    public func copySample(_ name: String) throws -> URL {
        let copy = url.appendingPathComponent(name)
        try FileManager.default.copyItem(at: SampleDocuments.folder.appendingPathComponent(name), to: copy)
        return copy
    }

    /// Writes `text` to a file in this folder and returns its URL.
    public func write(_ text: String, to name: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// Removes the folder now (releasing the value does too).
    public func remove() { try? FileManager.default.removeItem(at: url) }

    deinit { remove() }
}

/// A fresh package URL in a new folder (which exists; the package does not),
/// removed when the test process exits.
public func temporaryPackageURL(_ name: String = "Test") -> URL {
    // Creating a folder under the temporary directory fails only when the disk is
    // unusable, and then the test fails at its first write with the reason.
    let folder = (try? makeTemporaryFolder("package")) ?? processFolder.appendingPathComponent(UUID().uuidString)
    return folder.appendingPathComponent("\(name).folio")
}

/// A new, empty folder removed when the test process exits.
public func temporaryFolderURL(_ label: String = "folder") throws -> URL {
    try makeTemporaryFolder(label)
}

/// The checked-in sample documents: tests copy them (``TemporaryFolder/copySample(_:)``) and never write here.
public enum SampleDocuments {
    /// The repository's `SampleDocuments` folder.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleDocuments")

    /// A copy of `SampleDocuments/NAME.folio` in a new folder removed when the process exits.
    public static func copy(_ name: String) throws -> URL {
        let copy = try makeTemporaryFolder("sample").appendingPathComponent("\(name).folio")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("\(name).folio"), to: copy)
        return copy
    }
}

/// This process's folder of temporary folders, removed at exit.
private let processFolder: URL = {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("folio-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    processFolderPath = folder.path
    atexit { if let path = processFolderPath { try? FileManager.default.removeItem(atPath: path) } }
    return folder
}()

/// ``processFolder``'s path for the exit handler, which can capture nothing.
nonisolated(unsafe) private var processFolderPath: String?

private func makeTemporaryFolder(_ label: String) throws -> URL {
    let folder = processFolder.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
