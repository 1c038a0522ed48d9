import Dispatch
import Foundation

/// Turning raw identifiers into rows, and checking that both sides of every
/// relationship agree, once all objects are read.
extension DocumentLoader {
    /// Resolves every link, verifies inverses, then checks counts and unique values
    /// (DocumentLoader+Validation.swift). O(links) with no per-link search:
    /// a side is checked against a to-one inverse in O(1), to-many pairs through a set.
    ///
    /// Raw identifiers become rows on every core: the declared relationships' rows
    /// are cut into runs (``ResolveRun``) that read the finished index and write
    /// only their own rows. The first error in (entity, relationship, row) order
    /// is the one thrown, as a loop over them in that order would.
    func resolveLinks() throws(PackageError) {
        guard let graph else { return }
        let layout = graph.layout
        // A relationship into a hierarchy keeps the member in its targets' low bits:
        // the entities it may hold have fewer addressable rows (never reached below 2^29).
        for (entity, table) in graph.tables.enumerated() where table.rowCount > layout.maximumRows[entity] {
            throw .limitExceeded(
                objectLocation(entity: entity, row: layout.maximumRows[entity]), limit: .objects, size: table.rowCount,
                maximum: layout.maximumRows[entity])
        }
        var runs: [ResolveRun] = []
        for (entity, storage) in storages.enumerated() {
            let table = graph.tables[entity]
            for slot in 0..<layout.entities[entity].declaredLinkCount {
                let column = table.links[slot]
                let isToMany = layout.entities[entity].links[slot].isToMany
                // Pointers taken once, here, on this thread; no array is resized until every run is done.
                let one = isToMany ? nil : column.one.writableBaseAddress()
                let many = isToMany ? column.many.writableBaseAddress() : nil
                let rawOne = isToMany ? nil : storage.rawOne[slot].writableBaseAddress()
                let rawMany = isToMany ? storage.rawMany[slot].writableBaseAddress() : nil
                for start in stride(from: 0, to: table.rowCount, by: ResolveRun.rows) {
                    runs.append(
                        ResolveRun(
                            entity: entity, slot: slot, destination: layout.entities[entity].links[slot].destination,
                            hierarchy: layout.entities[entity].links[slot].hierarchy,
                            rows: start..<min(table.rowCount, start + ResolveRun.rows),
                            one: one, many: many, rawOne: rawOne, rawMany: rawMany))
                }
            }
        }
        // One copy of the index for all runs: a read per link through the graph would
        // retain its arrays, a reference count every core would write.
        let index = graph.index
        let failures = RunResults<(id: UInt64, row: Int)>(count: runs.count)
        if runs.count == 1 || index.count < 1 << 15 {
            for (position, run) in runs.enumerated() {
                if let failure = Self.resolve(run, index: index) {
                    failures.set(failure, at: position)
                    break
                }
            }
        } else {
            // Each run writes only its own rows; all are done when concurrentPerform returns.
            nonisolated(unsafe) let shared = runs
            DispatchQueue.concurrentPerform(iterations: shared.count) { position in
                if let failure = Self.resolve(shared[position], index: index) { failures.set(failure, at: position) }
            }
        }
        if let (position, failure) = failures.first() {
            throw unresolved(failure.id, entity: runs[position].entity, row: failure.row, slot: runs[position].slot)
        }
        for (entity, storage) in storages.enumerated() {
            for slot in 0..<layout.entities[entity].declaredLinkCount {
                storage.rawOne[slot] = []
                storage.rawMany[slot] = []
            }
        }
        for (entity, entityLayout) in layout.entities.enumerated() {
            for slot in 0..<entityLayout.declaredLinkCount {
                let link = entityLayout.links[slot]
                let inverse = layout.entities[link.destination].links[link.inverse]
                if link.hierarchy != nil || inverse.hierarchy != nil {
                    // Either side holds objects of several entities: checked pair by pair, from every side.
                    if inverse.isHidden {
                        try fillHiddenInverses(entity: entity, slot: slot)
                    } else {
                        try verifyHierarchyInverse(entity: entity, slot: slot)
                    }
                } else if inverse.isHidden {
                    try fillHiddenInverse(entity: entity, slot: slot)
                } else if (entity, slot) <= (link.destination, link.inverse) {
                    try verifyInverse(entity: entity, slot: slot)
                }
            }
        }
        try validateConstraints()
    }

    /// Turns one run's raw identifiers into rows. Returns the first that names no
    /// object, or an object of another entity, and its row; `nil` when all resolve.
    private static func resolve(_ run: ResolveRun, index: IdentifierIndex) -> (id: UInt64, row: Int)? {
        if let hierarchy = run.hierarchy { return resolve(run, into: hierarchy, index: index) }
        if let one = run.one, let rawOne = run.rawOne {
            for row in run.rows where rawOne[row] != 0 {
                guard let target = index[rawOne[row]], Int(target.entity) == run.destination else { return (rawOne[row], row) }
                one[row] = target.row
            }
        } else if let many = run.many, let rawMany = run.rawMany {
            for row in run.rows {
                let ids = rawMany[row]
                guard !ids.isEmpty else { continue }
                var targets: [Int32] = []
                targets.reserveCapacity(ids.count)
                for id in ids {
                    guard let target = index[id], Int(target.entity) == run.destination else { return (id, row) }
                    targets.append(target.row)
                }
                many[row] = targets
            }
        }
        return nil
    }

    /// ``resolve(_:index:)`` for a relationship into a hierarchy: an identifier
    /// may name an object of the destination or of any entity inheriting from
    /// it, stored with its member (``SchemaLayout/LinkHierarchy``).
    private static func resolve(
        _ run: ResolveRun, into hierarchy: SchemaLayout.LinkHierarchy, index: IdentifierIndex
    ) -> (id: UInt64, row: Int)? {
        func stored(_ id: UInt64) -> Int32? {
            guard let target = index[id], let member = hierarchy.member(of: Int(target.entity)) else { return nil }
            return target.row << hierarchy.shift | Int32(member)
        }
        if let one = run.one, let rawOne = run.rawOne {
            for row in run.rows where rawOne[row] != 0 {
                guard let target = stored(rawOne[row]) else { return (rawOne[row], row) }
                one[row] = target
            }
        } else if let many = run.many, let rawMany = run.rawMany {
            for row in run.rows {
                let ids = rawMany[row]
                guard !ids.isEmpty else { continue }
                var targets: [Int32] = []
                targets.reserveCapacity(ids.count)
                for id in ids {
                    guard let target = stored(id) else { return (id, row) }
                    targets.append(target)
                }
                many[row] = targets
            }
        }
        return nil
    }

    /// The error for a raw identifier that does not resolve: no such object, or one of another entity.
    private func unresolved(_ id: UInt64, entity: Int, row: Int, slot: Int) -> PackageError {
        guard let graph else { return .notAPackage(path: file) }
        let link = graph.layout.entities[entity].links[slot]
        guard graph.index[id] != nil else {
            return .danglingReference(
                objectLocation(entity: entity, row: row), entity: graph.layout.entities[entity].name,
                id: graph.tables[entity].ids[row], relationship: link.name ?? "", target: id)
        }
        return .wrongDestination(
            objectLocation(entity: entity, row: row), entity: graph.layout.entities[entity].name,
            id: graph.tables[entity].ids[row], relationship: link.name ?? "", target: id,
            expected: graph.layout.entities[link.destination].name)
    }

    /// Builds the in-memory inverse of a relationship the schema declares without one,
    /// refusing a to-many that lists an object twice. O(links): a stamp per
    /// destination row replaces a search of each list.
    private func fillHiddenInverse(entity: Int, slot: Int) throws(PackageError) {
        guard let graph else { return }
        let link = graph.layout.entities[entity].links[slot]
        let forward = graph.tables[entity].links[slot]
        let hidden = graph.tables[link.destination].links[link.inverse]
        var stamp = [Int32](repeating: -1, count: graph.tables[link.destination].rowCount)
        for row in 0..<graph.tables[entity].rowCount {
            for target in forward.targets(of: row) {
                if stamp[Int(target)] == Int32(row) {
                    throw mismatch(entity: entity, row: row, slot: slot, target: target, targetEntity: link.destination)
                }
                stamp[Int(target)] = Int32(row)
                hidden.many[Int(target)].append(Int32(row))
            }
        }
    }

    /// ``fillHiddenInverse(entity:slot:)`` for a relationship into a hierarchy:
    /// each member of the destination's hierarchy has a hidden inverse of its own.
    private func fillHiddenInverses(entity: Int, slot: Int) throws(PackageError) {
        guard let graph else { return }
        let link = graph.layout.entities[entity].links[slot]
        let forward = graph.tables[entity].links[slot]
        var stamps = graph.tables.map { _ in [Int32]() }
        for row in 0..<graph.tables[entity].rowCount {
            for target in forward.targets(of: row) {
                let ref = link.ref(target)
                let (member, targetRow) = (Int(ref.entity), Int(ref.row))
                if stamps[member].isEmpty { stamps[member] = [Int32](repeating: -1, count: graph.tables[member].rowCount) }
                if stamps[member][targetRow] == Int32(row) { throw mismatch(entity: entity, row: row, slot: slot, target: ref) }
                stamps[member][targetRow] = Int32(row)
                graph.tables[member].links[link.inverse(in: ref.entity)].many[targetRow].append(Int32(row))
            }
        }
    }

    /// ``verifyInverse(entity:slot:)`` when either side may hold objects of
    /// several entities: the pairs `entity.slot` lists, each once, must be
    /// exactly those its inverse lists (in every member of the destination's
    /// hierarchy) for objects of `entity`. O(links of both sides).
    private func verifyHierarchyInverse(entity: Int, slot: Int) throws(PackageError) {
        guard let graph else { return }
        let layout = graph.layout
        let link = layout.entities[entity].links[slot]
        var pairs = Set<KeyPair>()
        for row in 0..<graph.tables[entity].rowCount {
            for target in graph.tables[entity].links[slot].targets(of: row) {
                let ref = link.ref(target)
                guard pairs.insert(KeyPair(source: Int32(row), target: ref)).inserted else {
                    throw mismatch(entity: entity, row: row, slot: slot, target: ref)
                }
            }
        }
        for member in link.hierarchy.map({ $0.members.map(Int.init) }) ?? [link.destination] {
            let inverseSlot = link.inverse(in: Int32(member))
            let inverse = layout.entities[member].links[inverseSlot]
            for row in 0..<graph.tables[member].rowCount {
                for stored in graph.tables[member].links[inverseSlot].targets(of: row) {
                    let holder = inverse.ref(stored)
                    guard Int(holder.entity) == entity else { continue }
                    let back = ObjectRef(entity: member, row: row)
                    guard pairs.remove(KeyPair(source: holder.row, target: back)) != nil else {
                        throw mismatch(entity: member, row: row, slot: inverseSlot, target: holder)
                    }
                }
            }
        }
        if let leftover = pairs.first {
            throw mismatch(entity: entity, row: Int(leftover.source), slot: slot, target: leftover.target)
        }
    }

    /// A link of ``verifyHierarchyInverse(entity:slot:)``: a source row and the object it holds.
    private struct KeyPair: Hashable {
        var source: Int32
        var target: ObjectRef
    }

    /// Checks that `entity.slot` and its declared inverse describe the same pairs, each once.
    private func verifyInverse(entity: Int, slot: Int) throws(PackageError) {
        guard let graph else { return }
        let link = graph.layout.entities[entity].links[slot]
        let sideA = (entity: entity, slot: slot, column: graph.tables[entity].links[slot])
        let sideB = (entity: link.destination, slot: link.inverse, column: graph.tables[link.destination].links[link.inverse])
        // Check from a side whose inverse is to-one: each listed target must point straight back.
        for (from, to) in [(sideA, sideB), (sideB, sideA)] where !to.column.isToMany {
            for row in 0..<graph.tables[from.entity].rowCount {
                for target in from.column.targets(of: row) where to.column.one[Int(target)] != Int32(row) {
                    throw mismatch(entity: from.entity, row: row, slot: from.slot, target: target, targetEntity: to.entity)
                }
            }
        }
        if !sideA.column.isToMany || !sideB.column.isToMany {
            // One side is to-one. If the other is to-many, every listed object must
            // be listed once, and every object whose to-one is set must be listed.
            guard sideA.column.isToMany != sideB.column.isToMany else { return }
            let (many, one) = sideA.column.isToMany ? (sideA, sideB) : (sideB, sideA)
            var listed = [Bool](repeating: false, count: graph.tables[one.entity].rowCount)
            for row in 0..<graph.tables[many.entity].rowCount {
                for target in many.column.many[row] {
                    if listed[Int(target)] {
                        throw mismatch(entity: many.entity, row: row, slot: many.slot, target: target, targetEntity: one.entity)
                    }
                    listed[Int(target)] = true
                }
            }
            for (row, target) in one.column.one.enumerated() where target >= 0 && !listed[row] {
                throw mismatch(entity: one.entity, row: row, slot: one.slot, target: target, targetEntity: many.entity)
            }
            return
        }
        // Many-to-many: the pairs listed from each side must be the same set, each listed once.
        var pairs = Set<UInt64>()
        for row in 0..<graph.tables[sideA.entity].rowCount {
            for target in sideA.column.many[row] {
                guard pairs.insert(UInt64(UInt32(row)) << 32 | UInt64(UInt32(target))).inserted else {
                    throw mismatch(entity: sideA.entity, row: row, slot: sideA.slot, target: target, targetEntity: sideB.entity)
                }
            }
        }
        for row in 0..<graph.tables[sideB.entity].rowCount {
            for target in sideB.column.many[row] {
                guard pairs.remove(UInt64(UInt32(target)) << 32 | UInt64(UInt32(row))) != nil else {
                    throw mismatch(entity: sideB.entity, row: row, slot: sideB.slot, target: target, targetEntity: sideA.entity)
                }
            }
        }
        if let leftover = pairs.first {
            throw mismatch(
                entity: sideA.entity, row: Int(leftover >> 32), slot: sideA.slot,
                target: Int32(truncatingIfNeeded: leftover), targetEntity: sideB.entity)
        }
    }

    private func mismatch(entity: Int, row: Int, slot: Int, target: ObjectRef) -> PackageError {
        mismatch(entity: entity, row: row, slot: slot, target: target.row, targetEntity: Int(target.entity))
    }

    private func mismatch(entity: Int, row: Int, slot: Int, target: Int32, targetEntity: Int) -> PackageError {
        guard let graph else { return .notAPackage(path: file) }
        return .inverseMismatch(
            objectLocation(entity: entity, row: row), entity: graph.layout.entities[entity].name,
            id: graph.tables[entity].ids[row],
            relationship: graph.layout.entities[entity].links[slot].name ?? "",
            target: graph.tables[targetEntity].ids[Int(target)])
    }

    func objectLocation(entity: Int, row: Int) -> PackageError.Location {
        let state = storages[entity]
        // A graph read from part files: the part the row came from (errors only, so a linear search).
        let file = entity < rowFiles.count ? rowFiles[entity].last(where: { $0.start <= row })?.file ?? self.file : self.file
        guard row < state.lines.count else { return PackageError.Location(file: file, line: 0, column: 0) }
        return PackageError.Location(file: file, line: Int(state.lines[row]), column: Int(state.columns[row]))
    }
}

/// A run of rows of one declared relationship whose raw identifiers become rows
/// (``DocumentLoader/resolveLinks()``): pointers to row 0 of the relationship's
/// column and of the raw identifiers, which no one resizes while runs are resolved.
struct ResolveRun {
    /// Rows per run: enough to make handing a run to another thread worth it.
    static let rows = 1 << 16
    let entity: Int
    let slot: Int
    let destination: Int
    /// Set for a relationship into a hierarchy: how its targets are stored.
    let hierarchy: SchemaLayout.LinkHierarchy?
    let rows: Range<Int>
    let one: UnsafeMutablePointer<Int32>?
    let many: UnsafeMutablePointer<[Int32]>?
    let rawOne: UnsafeMutablePointer<UInt64>?
    let rawMany: UnsafeMutablePointer<[UInt64]>?
}
