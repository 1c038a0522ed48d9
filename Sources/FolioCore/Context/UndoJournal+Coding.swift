/// The journal's bytes: the magic, the version, the header, the groups, then
/// a hash of everything before it, which catches a cut-off or changed file
/// before anything in it is believed.
extension UndoJournal {
    /// Tags of steps and link changes on disk; never renumbered.
    private enum Tag {
        static let removal: UInt8 = 1, setValue: UInt8 = 2, revertLinks: UInt8 = 3, restore: UInt8 = 4
        static let inserted: UInt8 = 1, removed: UInt8 = 2, toOne: UInt8 = 3, absent: UInt8 = 4, replaced: UInt8 = 5
    }

    /// The journal's bytes; values are written in their attribute's type of `layout`.
    func encode(layout: SchemaLayout) -> [UInt8] {
        Self.encode(
            header: header(),
            groups: (undo.map { Self.bytes(of: $0, layout: layout) }, redo.map { Self.bytes(of: $0, layout: layout) }))
    }

    /// A journal's bytes from its ``header()`` and each group's bytes
    /// (``bytes(of:layout:)``, kept from an earlier save), in stack order.
    static func encode(header: [UInt8], groups: (undo: [[UInt8]], redo: [[UInt8]])) -> [UInt8] {
        var out = JournalBytesWriter()
        out.append(raw: header)
        for stack in [groups.undo, groups.redo] {
            out.append(stack.count)
            for bytes in stack { out.append(raw: bytes) }
        }
        var hasher = ContentHasher()
        hasher.update(out.bytes)
        out.appendFixed(hasher.finalize())
        return out.bytes
    }

    /// How many bytes ``encode(header:groups:)`` writes, without writing them.
    static func encodedSize(header: [UInt8], groups: (undo: [[UInt8]], redo: [[UInt8]])) -> Int {
        var counts = JournalBytesWriter()
        counts.append(groups.undo.count)
        counts.append(groups.redo.count)
        return header.count + counts.bytes.count + groups.undo.reduce(0) { $0 + $1.count } + groups.redo.reduce(0) { $0 + $1.count } + 8
    }

    /// One group's bytes, as ``encode(header:groups:)`` writes it.
    static func bytes(of group: Group, layout: SchemaLayout) -> [UInt8] {
        var out = JournalBytesWriter()
        out.append(group.name)
        out.appendFixed(group.time.bitPattern)
        out.append(group.steps.count)
        for step in group.steps { append(step, layout: layout, to: &out) }
        return out.bytes
    }

    /// What precedes the groups: the magic, the version, the owner, the schema and the states.
    func header() -> [UInt8] {
        var out = JournalBytesWriter()
        out.append(raw: Self.magic)
        out.append(Self.version)
        out.append(owner)
        out.appendFixed(schemaHash)
        out.append(states.count)
        for state in states {
            Self.append(state.object, to: &out)
            // 0 for an object that was not live, else one more than its number of properties.
            guard let properties = state.properties else {
                out.append(0)
                continue
            }
            out.append(properties.count + 1)
            for hash in properties { out.appendFixed(hash) }
        }
        return out.bytes
    }

    /// Reads a journal, refusing whatever ``encode(layout:)`` could not have
    /// written for this schema and this owner.
    ///
    /// - Throws: ``UndoJournalError``: never traps, whatever the bytes.
    static func decode(_ bytes: [UInt8], layout: SchemaLayout, owner expectedOwner: String) throws(UndoJournalError) -> UndoJournal {
        guard bytes.count <= maximumFileSize else { throw .tooLarge(bytes: bytes.count) }
        guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else { throw .notAJournal }
        var header = JournalBytesReader(bytes, from: magic.count)
        let version = try header.int(atMost: Int(UInt32.max))
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard bytes.count >= magic.count + 8 else { throw .damaged("unexpected end") }
        var trailer = JournalBytesReader(bytes, from: bytes.count - 8)
        var hasher = ContentHasher()
        bytes.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<(bytes.count - 8)])) }
        guard try trailer.fixed() == hasher.finalize() else { throw .damaged("its checksum does not match its contents") }

        var input = JournalBytesReader(bytes, from: header.offset, to: bytes.count - 8)
        let owner = try input.string()
        guard owner == expectedOwner else { throw .foreign(owner: owner) }
        let schema = try input.fixed()
        guard schema == schemaHash(layout) else { throw .schemaChanged }
        var states: [SavedObject] = []
        let stateCount = try input.count(minimumSize: 3)
        states.reserveCapacity(stateCount)
        for _ in 0..<stateCount {
            let object = try object(&input, layout)
            let entity = layout.entities[object.entity]
            let count = entity.attributes.count + entity.links.count
            switch try input.int(atMost: count + 1) {
            case 0:
                states.append(SavedObject(object: object, properties: nil))
            case count + 1:
                var properties: [UInt64] = []
                properties.reserveCapacity(count)
                for _ in 0..<count { properties.append(try input.fixed()) }
                states.append(SavedObject(object: object, properties: properties))
            default:
                throw input.damaged("an object state that does not count its entity's \(count) properties")
            }
        }
        var stacks: [[Group]] = []
        for _ in 0..<2 {
            var groups: [Group] = []
            for _ in 0..<(try input.count(minimumSize: 10)) {
                let name = try input.string()
                let time = Double(bitPattern: try input.fixed())
                guard time.isFinite else { throw input.damaged("a time that is not a number") }
                var steps: [Step] = []
                for _ in 0..<(try input.count(minimumSize: 2)) { steps.append(try step(&input, layout)) }
                groups.append(Group(name: name, time: time, steps: steps))
            }
            stacks.append(groups)
        }
        guard input.isAtEnd else { throw input.damaged("bytes after the last step") }
        return UndoJournal(owner: owner, schemaHash: schema, states: states, undo: stacks[0], redo: stacks[1])
    }

    /// A hash of what the journal's numbers mean: the entities, their
    /// attributes (names and types) and their relationships (names,
    /// destinations, kinds), in order. A journal of another schema is refused.
    static func schemaHash(_ layout: SchemaLayout) -> UInt64 {
        var out = JournalBytesWriter()
        for entity in layout.entities {
            out.append(entity.name)
            out.append(entity.attributes.count)
            for attribute in entity.attributes {
                out.append(attribute.name)
                out.append(attribute.type.description)
            }
            out.append(entity.links.count)
            for link in entity.links {
                out.append(link.name ?? "")
                out.append(link.destination)
                out.append(link.isToMany)
                out.append(link.inverse)
            }
        }
        var hasher = ContentHasher()
        hasher.update(out.bytes)
        return hasher.finalize()
    }

    // MARK: Writing

    private static func append(_ object: Object, to out: inout JournalBytesWriter) {
        out.append(object.entity)
        out.append(object.id)
    }

    private static func append(_ value: Value, type: ValueType, to out: inout JournalBytesWriter) {
        if case .null = value {
            out.append(false)
        } else {
            out.append(true)
            out.append(ValueText.encode(value, as: type))
        }
    }

    private static func append(_ ids: [UInt64], to out: inout JournalBytesWriter) {
        out.append(ids.count)
        for id in ids { out.append(id) }
    }

    private static func append(_ step: Step, layout: SchemaLayout, to out: inout JournalBytesWriter) {
        switch step {
        case .removal(let objects, let name):
            out.append(raw: [Tag.removal])
            out.append(name)
            out.append(objects.count)
            for object in objects { append(object, to: &out) }
        case .setValue(let object, let attribute, let value, let name):
            out.append(raw: [Tag.setValue])
            out.append(name)
            append(object, to: &out)
            out.append(attribute)
            append(value, type: layout.entities[object.entity].attributes[attribute].type, to: &out)
        case .revertLinks(let links, let name, let exact):
            out.append(raw: [Tag.revertLinks])
            out.append(name)
            out.append(exact)
            out.append(links.count)
            for link in links { append(link, to: &out) }
        case .restore(let restore, let name, let exact):
            out.append(raw: [Tag.restore])
            out.append(name)
            out.append(exact)
            out.append(restore.removed.count)
            for removed in restore.removed {
                append(removed.object, to: &out)
                for (value, attribute) in zip(removed.values, layout.entities[removed.object.entity].attributes) {
                    append(value, type: attribute.type, to: &out)
                }
            }
            out.append(restore.lists.count)
            for list in restore.lists {
                append(list.object, to: &out)
                out.append(list.slot)
                out.append(list.one ?? 0)
                append(list.many, to: &out)
                out.append(list.absent)
            }
            out.append(restore.cuts.count)
            for cut in restore.cuts { append(cut, to: &out) }
            out.append(restore.edits.count)
            for edits in restore.edits {
                append(edits.object, to: &out)
                out.append(edits.attributes.count)
                for attribute in edits.attributes { out.append(attribute) }
            }
        }
    }

    private static func append(_ link: Link, to out: inout JournalBytesWriter) {
        switch link {
        case .inserted(let object, let slot, let target, let index), .removed(let object, let slot, let target, let index):
            if case .inserted = link { out.append(raw: [Tag.inserted]) } else { out.append(raw: [Tag.removed]) }
            append(object, to: &out)
            out.append(slot)
            out.append(target)
            out.append(index)
        case .toOne(let object, let slot, let old, let new):
            out.append(raw: [Tag.toOne])
            append(object, to: &out)
            out.append(slot)
            out.append(old ?? 0)
            out.append(new ?? 0)
        case .absent(let object, let slot, let wasAbsent):
            out.append(raw: [Tag.absent])
            append(object, to: &out)
            out.append(slot)
            out.append(wasAbsent)
        case .replaced(let object, let slot, let old, let new):
            out.append(raw: [Tag.replaced])
            append(object, to: &out)
            out.append(slot)
            append(old, to: &out)
            append(new, to: &out)
        }
    }

    // MARK: Reading

    private static func object(_ input: inout JournalBytesReader, _ layout: SchemaLayout) throws(UndoJournalError) -> Object {
        let entity = try input.int(atMost: layout.entities.count - 1)
        let id = try input.uint64()
        guard id != 0 else { throw input.damaged("identifier 0") }
        return Object(entity: entity, id: id)
    }

    private static func value(_ input: inout JournalBytesReader, type: ValueType) throws(UndoJournalError) -> Value {
        guard try input.bool() else { return .null }
        let text = try input.string()
        guard let value = ValueText.decode(text, as: type) else { throw input.damaged("a value that is not a \(type)") }
        return value
    }

    private static func ids(_ input: inout JournalBytesReader) throws(UndoJournalError) -> [UInt64] {
        var ids: [UInt64] = []
        for _ in 0..<(try input.count()) {
            let id = try input.uint64()
            guard id != 0 else { throw input.damaged("identifier 0") }
            ids.append(id)
        }
        return ids
    }

    private static func slot(_ input: inout JournalBytesReader, of object: Object, _ layout: SchemaLayout) throws(UndoJournalError) -> Int {
        try input.int(atMost: layout.entities[object.entity].links.count - 1)
    }

    private static func step(_ input: inout JournalBytesReader, _ layout: SchemaLayout) throws(UndoJournalError) -> Step {
        let tag = try input.byte()
        let name = try input.string()
        switch tag {
        case Tag.removal:
            var objects: [Object] = []
            for _ in 0..<(try input.count(minimumSize: 2)) { objects.append(try object(&input, layout)) }
            return .removal(objects, name: name)
        case Tag.setValue:
            let object = try object(&input, layout)
            let attributes = layout.entities[object.entity].attributes
            let attribute = try input.int(atMost: attributes.count - 1)
            return .setValue(object, attribute: attribute, value: try value(&input, type: attributes[attribute].type), name: name)
        case Tag.revertLinks:
            let exact = try input.bool()
            var links: [Link] = []
            for _ in 0..<(try input.count(minimumSize: 4)) { links.append(try link(&input, layout)) }
            return .revertLinks(links, name: name, exact: exact)
        case Tag.restore:
            let exact = try input.bool()
            var restore = Restore(removed: [], lists: [], cuts: [], edits: [])
            for _ in 0..<(try input.count(minimumSize: 2)) {
                let object = try object(&input, layout)
                var values: [Value] = []
                for attribute in layout.entities[object.entity].attributes {
                    values.append(try value(&input, type: attribute.type))
                }
                restore.removed.append(Restore.Removed(object: object, values: values))
            }
            for _ in 0..<(try input.count(minimumSize: 6)) {
                let object = try object(&input, layout)
                let slot = try slot(&input, of: object, layout)
                let one = try input.uint64()
                let many = try ids(&input)
                let absent = try input.bool()
                guard one == 0 || many.isEmpty else { throw input.damaged("a list that is both a to-one and a to-many") }
                restore.lists.append(Restore.List(object: object, slot: slot, one: one == 0 ? nil : one, many: many, absent: absent))
            }
            for _ in 0..<(try input.count(minimumSize: 4)) { restore.cuts.append(try link(&input, layout)) }
            for _ in 0..<(try input.count(minimumSize: 3)) {
                let object = try object(&input, layout)
                var attributes: [Int] = []
                // Property numbers: the attributes, then the relationships' slots.
                let count = layout.entities[object.entity].attributes.count + layout.entities[object.entity].links.count
                for _ in 0..<(try input.count()) { attributes.append(try input.int(atMost: count - 1)) }
                restore.edits.append(Restore.Edits(object: object, attributes: attributes))
            }
            return .restore(restore, name: name, exact: exact)
        default:
            throw input.damaged("unknown step \(tag)")
        }
    }

    private static func link(_ input: inout JournalBytesReader, _ layout: SchemaLayout) throws(UndoJournalError) -> Link {
        let tag = try input.byte()
        let object = try object(&input, layout)
        let slot = try slot(&input, of: object, layout)
        switch tag {
        case Tag.inserted, Tag.removed:
            let target = try input.uint64()
            guard target != 0 else { throw input.damaged("identifier 0") }
            let index = try input.int(atMost: Int(Int32.max))
            return tag == Tag.inserted
                ? .inserted(object, slot: slot, target: target, at: index) : .removed(object, slot: slot, target: target, at: index)
        case Tag.toOne:
            let old = try input.uint64()
            let new = try input.uint64()
            return .toOne(object, slot: slot, old: old == 0 ? nil : old, new: new == 0 ? nil : new)
        case Tag.absent:
            return .absent(object, slot: slot, wasAbsent: try input.bool())
        case Tag.replaced:
            return .replaced(object, slot: slot, old: try ids(&input), new: try ids(&input))
        default:
            throw input.damaged("unknown link change \(tag)")
        }
    }
}
