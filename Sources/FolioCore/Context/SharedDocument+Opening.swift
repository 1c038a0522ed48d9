import Foundation

/// Opening a package: sharing the shared document already open on it in this process
/// (``DocumentRegistry``) or reading it, with its migration to the
/// container's schema (a migration plan's stages, or the lightweight one).
extension SharedDocument {
    /// A shared document of its own for an in-memory container.
    static func inMemory(_ graph: ObjectGraph) -> SharedDocument {
        SharedDocument(package: nil, key: nil, graph: graph, fingerprint: nil, writeLock: nil, diskSchema: nil)
    }

    /// The process's shared document for the package at `url`: the one already open if
    /// there is one that can serve this container, else a new one read from disk.
    ///
    /// A container that may save needs the shared document to hold the package's write
    /// lock: a shared document opened by read-only containers takes it now, if the
    /// package is still as that shared document read it; otherwise a fresh shared document is read
    /// (and registered), and the read-only containers keep their old one.
    ///
    /// - Parameters:
    ///   - schema: the container's schema; `nil` takes the schema stored in the package
    ///     (which must then exist). A package in an older shape is migrated in memory.
    /// - Throws: ``ModelError/package(_:)`` (``PackageError/locked(path:)`` when
    ///   another process writes it and `allowsSave`), ``ModelError/migration(package:_:)``,
    ///   ``ModelError/configuration(_:)`` when the package is open in this process
    ///   with another schema.
    ///   - migration: what brings the stored graph to `schema` instead of the
    ///     lightweight migration (a migration plan); run only when the package is
    ///     read, not when a shared document already open is shared.
    static func open(
        url: URL, allowsSave: Bool, schema: Schema?,
        migration: StoredGraphMigration? = nil
    ) throws(ModelError) -> SharedDocument {
        let key = DocumentRegistry.canonicalPath(url)
        let registry = DocumentRegistry.shared
        // The registry stays locked while the package is read, so two threads never read one
        // package into two shared documents. Its lock is recursive, so a migration stage's code may open
        // other packages on this thread; opens on other threads wait until the read is done.
        return try registry.withLock { () throws(ModelError) -> SharedDocument in
            var inherited: PackageLock?
            if let entry = registry.entry(key) {
                if let existing = entry.sharedDocument {
                    if !allowsSave, !existing.isCurrent {
                        // Another program changed the package since this shared document read it:
                        // a reader gets what is on disk now, in a shared document of its own.
                        return try read(
                            url: url, key: nil, allowsSave: false, schema: schema, migration: migration,
                            inherited: nil)
                    }
                    // Before any lock is taken for it: a refused container must leave no lock behind.
                    if let schema, existing.schema != schema {
                        throw .configuration(
                            "\(url.path) is open in this process with a different schema; "
                                + "close the other container first")
                    }
                    // A plan's stages run when a package is read; a shared document another container
                    // opened without them must already be where the plan ends.
                    if let migration, let onDisk = existing.diskSchema, !migration.isSettled(onDisk) {
                        throw .configuration(
                            "\(url.path) is open in this process by a container without the "
                                + "migration plan, at an earlier version; close it first, or open "
                                + "the package with the plan first")
                    }
                    if try existing.canServe(allowsSave: allowsSave) { return existing }
                } else {
                    // The last shared document is going away on another thread: its last write must land
                    // before the package is read here, or this shared document would start from an older
                    // state (and its first save be refused as a conflict).
                    entry.slot.waitForLastWrite()
                }
                // A shared document going away (this entry's, or one it took its lock from) may not have closed
                // its lock yet: carry the lock over instead of being refused by it.
                inherited = entry.slot.held
            }
            let sharedDocument = try read(
                url: url, key: key, allowsSave: allowsSave, schema: schema, migration: migration,
                inherited: inherited)
            registry.register(DocumentRegistry.Entry(sharedDocument: sharedDocument, slot: sharedDocument.lockSlot), for: key)
            return sharedDocument
        }
    }

    /// Reads the package into a new shared document, taking its lock first when `allowsSave`
    /// (`inherited`, when this process still holds it open; a read-only shared document only shows it).
    private static func read(
        url: URL, key: String?, allowsSave: Bool, schema: Schema?, migration: StoredGraphMigration?,
        inherited: PackageLock?
    ) throws(ModelError) -> SharedDocument {
        let package = DocumentPackage(url: url)
        func takeLock() throws(PackageError) -> PackageLock {
            if let inherited { return inherited }
            return try PackageLock(path: url.path)
        }
        guard let schema else {
            // The schema stored in the package: it must exist.
            let writeLock: PackageLock?
            do {
                writeLock = allowsSave && FileManager.default.fileExists(atPath: url.path) ? try takeLock() : nil
            } catch { throw .package(error) }
            let fingerprint = package.fingerprint
            let graph: ObjectGraph, history: HistoryLog
            do { (graph, history) = try package.readDocument(limits: .standard) } catch { throw .package(error) }
            return SharedDocument(
                package: package, key: key, graph: graph, history: history, fingerprint: fingerprint,
                writeLock: writeLock, carriedLock: inherited, diskSchema: graph.schema)
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            // A new document: the lock is taken when the first save creates it.
            return SharedDocument(
                package: package, key: key, graph: ObjectGraph(schema: schema), fingerprint: nil, writeLock: nil,
                carriedLock: inherited, diskSchema: nil)
        }
        let writeLock: PackageLock?
        do { writeLock = allowsSave ? try takeLock() : nil } catch { throw .package(error) }
        var fingerprint = package.fingerprint
        var graph: ObjectGraph
        let read: (graph: ObjectGraph, history: HistoryLog)
        do { read = try package.readDocument(limits: .standard) } catch { throw .package(error) }
        graph = read.graph
        var diskSchema = graph.schema
        var history = read.history
        if let migration {
            // A migration plan's stages: the package is rewritten now, once all of them succeeded.
            let migrated = try migration.migrate(graph, url.path)
            graph = migrated.graph
            rename(&history, in: package, from: diskSchema, by: migrated.renaming)
            if migrated.rewrite, allowsSave {
                do { fingerprint = try package.write(graph, expecting: fingerprint, history: history) } catch { throw .package(error) }
                diskSchema = graph.schema
            }
        } else {
            graph = try lightweightMigration(of: graph, to: schema, package: url.path)
            if graph.schema != diskSchema {
                let renaming: SchemaRenaming
                do { renaming = try SchemaRenaming(from: diskSchema, to: graph.schema) } catch { throw .migration(package: url.path, error) }
                rename(&history, in: package, from: diskSchema, by: renaming)
            }
        }
        return SharedDocument(
            package: package, key: key, graph: graph, history: history, fingerprint: fingerprint,
            writeLock: writeLock, carriedLock: inherited, diskSchema: diskSchema)
    }

    /// Brings the history read with a package under the names its migrated
    /// schema gives (nothing to do when every name is kept): a document's
    /// history names only what its schema declares, so the save that writes
    /// the migrated schema writes the renamed history with it.
    private static func rename(
        _ history: inout HistoryLog, in package: DocumentPackage, from stored: Schema,
        by renaming: SchemaRenaming
    ) {
        guard !renaming.keepsEveryName(of: stored) else { return }
        history.rename(
            in: package.folder, limits: .standard, storedSchema: stored, entity: renaming.entity,
            property: renaming.property)
    }

    /// The stored graph under the container's schema, migrated in memory when
    /// the two differ (the package is rewritten by the next save).
    ///
    /// - Throws: ``MigrationError/backwardMigration(stored:current:)`` when both
    ///   schemas declare versions and the stored one is later: a lightweight
    ///   migration would drop what the later version added.
    static func lightweightMigration(
        of graph: ObjectGraph, to schema: Schema,
        package path: String
    ) throws(ModelError) -> ObjectGraph {
        if let stored = graph.schema.declaredVersion, let current = schema.declaredVersion, stored > current {
            throw .migration(package: path, .backwardMigration(stored: stored, current: current))
        }
        // The graph takes the container's schema (its classes, its defaults). With the same
        // entities it keeps the version the package records, unless the container declares one.
        var target = schema
        if target.declaredVersion == nil, graph.schema.differsOnlyInDefaultsOrIndexes(from: schema, inAnyOrder: true) {
            target.declaredVersion = graph.schema.declaredVersion
        }
        do { return try graph.brought(to: target) } catch { throw .migration(package: path, error) }
    }

    /// The schema of the package as on disk; `nil` before its first save.
    var diskSchema: Schema? {
        lock.lock()
        defer { lock.unlock() }
        return disk?.schema
    }

    /// Whether the package on disk is still what this shared document last read or wrote.
    var isCurrent: Bool {
        // Not between a background write's rename and the fingerprint it records.
        guard let writer else { return true }
        return writer.exclusively { isCurrentLocked }
    }

    /// ``isCurrent``, with the writer's lock held.
    var isCurrentLocked: Bool {
        lock.lock()
        defer { lock.unlock() }
        return disk?.isCurrent ?? true
    }

    /// Whether a new container with `allowsSave` can share this shared document; takes the
    /// write lock for it if needed. Called with the registry locked.
    private func canServe(allowsSave: Bool) throws(ModelError) -> Bool {
        guard let writer else { return true }
        return try writer.exclusively { () throws(ModelError) in try canServeLocked(allowsSave: allowsSave) }
    }

    private func canServeLocked(allowsSave: Bool) throws(ModelError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard allowsSave else { return true }
        // Opened read-only so far: shared only if the package is still what this shared document read.
        do throws(PackageError) { return try disk?.lockForSaving() ?? true } catch { throw .package(error) }
    }
}
