import Foundation

/// The typed API: inserting, deleting and fetching `@Model` instances, which
/// are views over the same graph the dynamic API edits.
extension ModelContext {
    // MARK: Registered models

    /// The model for an object, reusing the registered instance if there is one:
    /// the one place models of objects a context holds are made (fetch, reads
    /// of relationships, `model(for:)`).
    ///
    /// - Complexity: O(1); a new model costs the instance and its backing data,
    ///   nothing per property and no weak reference (see ``ModelRegistry``).
    ///   `columns`, when given, are the class's (``columns(for:)``), resolved once
    ///   by a caller making many models.
    func model<T: PersistentModel>(_ type: T.Type, at ref: ObjectRef, columns: ModelColumns? = nil) -> T {
        let id = graph.tables[Int(ref.entity)].ids[Int(ref.row)]
        if let existing = withTyped({ $0.registry.model(id, as: T.self) }) { return existing }
        let columns = columns ?? self.columns(for: T.self)
        // An object of a subentity (a fetch of a superclass): a model of its own class.
        if columns?.entity != Int(ref.entity), let model = subclassModel(T.self, at: ref) { return model }
        if let columns, let shared = sharedBacking(T.self, entity: Int(ref.entity), columns: columns) {
            let typed = self.typed
            return shared.makingModels(of: T.self) {
                makeSharingModel(T.self, shared, columns, typed, id: id, row: ref.row, unretained: T._$unregistersOnDeinit)
            }
        }
        let identifier = PersistentIdentifier(entityName: graph.layout.entities[Int(ref.entity)].name, id: id)
        let model = BackingData(context: self, identifier: identifier, ref: ref, columns: columns).makeModel(T.self)
        register(model, id: id, unretained: T._$unregistersOnDeinit)
        return model
    }

    /// Makes and registers a model of `T` sharing `shared`, for object `id`
    /// at `row`; inside `shared.makingModels(of:)`, which hands it over, with
    /// the typed layer's state (``typed``) looked up already (``register(_:id:unretained:)``
    /// looks it up per model, a fetch once).
    private func makeSharingModel<T: PersistentModel>(
        _ type: T.Type, _ shared: BackingData, _ columns: ModelColumns,
        _ typed: TypedContextState, id: UInt64, row: Int32, unretained: Bool
    ) -> T {
        let model = Self.sharingInstance(T.self, shared, id: id, row: row)
        columns.sharingModels += 1
        typed.registry.register(model, id: id, unretained: unretained)
        return model
    }

    /// A new model of `T` sharing `shared`, for object `id` at `row`, not yet
    /// counted or registered; inside `shared.makingModels(of:)`, which hands it over.
    private static func sharingInstance<T: PersistentModel>(_ type: T.Type, _ shared: BackingData, id: UInt64, row: Int32) -> T {
        let model = T(backingData: shared)
        model._$sharedRow = _SharedBackingRow(id: id, row: row)
        return model
    }

    /// The backing data the models of `T` made in this graph share, if the
    /// class keeps a shared row (``_SharedBackingRow``) and its columns match
    /// `entity`: a fetch of a million models allocates a million instances,
    /// not twice that.
    private func sharedBacking<T: PersistentModel>(_ type: T.Type, entity: Int, columns: ModelColumns?) -> BackingData? {
        guard T._$sharesBackingData, let columns, columns.entity == entity, columns.epoch == graphEpoch else { return nil }
        if let shared = columns.sharedBacking { return shared }
        let made = BackingData(sharedBy: self, entity: entity, columns: columns)
        columns.sharedBacking = made
        return made
    }

    /// The models for many objects, as ``model(_:at:columns:)`` makes each, with
    /// what every one shares looked up once: the class's columns and shared
    /// backing data, its entity's table, how the registry holds it.
    ///
    /// - Complexity: O(refs); a new model costs its instance.
    func models<T: PersistentModel>(_ type: T.Type, at refs: [ObjectRef]) -> [T] {
        let columns = columns(for: T.self)
        guard let entity = refs.first?.entity, refs.allSatisfy({ $0.entity == entity }), let columns,
            let shared = sharedBacking(T.self, entity: Int(entity), columns: columns)
        else {
            return refs.map { model(T.self, at: $0, columns: columns) }
        }
        let ids = graph.tables[Int(entity)].ids
        let unretained = T._$unregistersOnDeinit
        let typed = self.typed
        if refs.count >= Self.modelsMadeConcurrentlyFrom, ProcessInfo.processInfo.activeProcessorCount > 1,
            Self.makesModelsAnywhere(T.self)
        {
            return concurrentlyMadeModels(
                T.self, at: refs, ids: ids, shared: shared, entity: Int(entity), columns: columns,
                typed: typed, unretained: unretained)
        }
        return shared.makingModels(of: T.self) {
            Array(unsafeUninitializedCapacity: refs.count) { buffer, count in
                for (index, ref) in refs.enumerated() {
                    let id = ids[Int(ref.row)]
                    if let existing = typed.registry.model(id, as: T.self) {
                        buffer.initializeElement(at: index, to: existing)
                    } else {
                        buffer.initializeElement(
                            at: index,
                            to: makeSharingModel(
                                T.self, shared, columns, typed, id: id, row: ref.row,
                                unretained: unretained))
                    }
                    count = index + 1
                }
            }
        }
    }

    /// Whether models of `type` may be made on any thread: `@Model` says so, and
    /// the class has no superclass, whose initial values `@Model` cannot see
    /// and making a model runs too.
    static func makesModelsAnywhere(_ type: any PersistentModel.Type) -> Bool {
        type._$makesModelsAnywhere && _getSuperclass(type) == nil
    }

    /// Below this many models, handing the work to other threads costs more than it saves.
    static let modelsMadeConcurrentlyFrom = 1 << 15

    /// ``models(_:at:)`` for a class whose models may be made on any thread
    /// (``PersistentModel/_$makesModelsAnywhere``): the instances, which are most
    /// of a large fetch's cost (an allocation each, and the pages they fill), are
    /// made on every core, each slice of the result by one thread; then this
    /// thread registers the new ones, as ``makeSharingModel(_:_:_:id:row:unretained:)`` does.
    ///
    /// Each slice's models share a backing data of their own (the first slice's
    /// `shared`, the context's): models made on every core retaining one object
    /// would contend for its reference count. A context already
    /// has several shared backing data once its graph changes; each is
    /// complete alone.
    ///
    /// The threads only read the context: its registry (for models made
    /// already) and the graph's identifiers.
    private func concurrentlyMadeModels<T: PersistentModel>(
        _ type: T.Type, at refs: [ObjectRef], ids: [UInt64],
        shared: BackingData, entity: Int, columns: ModelColumns,
        typed: TypedContextState, unretained: Bool
    ) -> [T] {
        let count = refs.count
        let isNew = UnsafeMutableBufferPointer<Bool>.allocate(capacity: count)
        defer { isNew.deallocate() }
        let slices = ProcessInfo.processInfo.activeProcessorCount
        let backings = [shared] + (1..<slices).map { _ in BackingData(sharedBy: self, entity: entity, columns: columns) }
        var result = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each slice writes only its own elements of `buffer` and `isNew`; all are
            // written when concurrentPerform returns. The rest is only read. The class
            // is one `makesModelsAnywhere` found may make models on any thread.
            let output = buffer
            let makeSlice = { (slice: Int) in
                let range = (count * slice / slices)..<(count * (slice + 1) / slices)
                let shared = backings[slice]
                shared.makingModels(of: T.self) {
                    for index in range {
                        let row = refs[index].row
                        let id = ids[Int(row)]
                        if let existing = typed.registry.model(id, as: T.self) {
                            output.initializeElement(at: index, to: existing)
                            isNew[index] = false
                        } else {
                            output.initializeElement(at: index, to: Self.sharingInstance(T.self, shared, id: id, row: row))
                            isNew[index] = true
                        }
                    }
                }
            }
            nonisolated(unsafe) let work = makeSlice
            DispatchQueue.concurrentPerform(iterations: slices) { work($0) }
            initialized = count
        }
        // Registered from the identifiers, not the instances: another core made them,
        // and reading one here (its row, or a retain) is a cache miss per model.
        result.withUnsafeMutableBufferPointer { models in
            guard let base = models.baseAddress else { return }
            let bits = UnsafeRawPointer(base).assumingMemoryBound(to: UnsafeRawPointer.self)
            for index in 0..<count where isNew[index] {
                columns.sharingModels += 1
                let id = ids[Int(refs[index].row)]
                if typed.registry.hasModel(id), let registered = typed.registry.model(id, as: T.self) {
                    // An object listed twice got a model on each thread: one is kept, as on one thread.
                    models[index] = registered
                    continue
                }
                Unmanaged<T>.fromOpaque(bits[index])._withUnsafeGuaranteedRef {
                    typed.registry.register($0, id: id, unretained: unretained)
                }
            }
        }
        return result
    }

    /// The class's columns in this context's graph, resolved once per graph.
    func columns<T: PersistentModel>(for type: T.Type) -> ModelColumns? {
        columns(forType: T.self)
    }

    func columns(forType type: any PersistentModel.Type) -> ModelColumns? {
        let key = ObjectIdentifier(type)
        if let cached = withTyped({ $0.modelColumns[key] }) { return cached }
        // The first typed use of this graph: before any model of it is read.
        ObservationTrackingProbe.install()
        guard let made = ModelColumns(type, graph: graph, epoch: graphEpoch) else { return nil }
        withTyped { $0.modelColumns[key] = made }
        return made
    }

    /// The model of an object of a subentity of `T`'s entity, as an instance
    /// of the subentity's class (a subclass of `T`); `nil` when the object's
    /// entity is `T`'s own or its class is not known to be a subclass of `T`.
    private func subclassModel<T: PersistentModel>(_ type: T.Type, at ref: ObjectRef) -> T? {
        let name = graph.layout.entities[Int(ref.entity)].name
        guard name != T.entityName, let subclass = core.schema.modelTypes[name],
            BackingData.inherits(subclass, from: T.self)
        else { return nil }
        func make<S: PersistentModel>(_ type: S.Type) -> T? { model(S.self, at: ref) as AnyObject as? T }
        return make(subclass)
    }

    /// The model for an object, of a class known only at run time (a to-one read).
    func anyModel(_ type: any PersistentModel.Type, at ref: ObjectRef) -> any PersistentModel {
        if let existing = typed.registry[graph.tables[Int(ref.entity)].ids[Int(ref.row)]] { return existing }
        func make<T: PersistentModel>(_ type: T.Type) -> any PersistentModel { model(T.self, at: ref) }
        return make(type)
    }

    /// Forgets the model registered for an object, if it is this backing data's.
    func unregister(_ backing: BackingData, id: UInt64) {
        if let model = typed.registry[id], model.ownBackingData === backing { typed.registry.remove(id) }
    }

    /// The model for an object of any entity whose class this container knows.
    private func anyModel(at ref: ObjectRef) -> (any PersistentModel)? {
        let id = graph.tables[Int(ref.entity)].ids[Int(ref.row)]
        if let existing = typed.registry[id] { return existing }
        guard let type = core.schema.modelTypes[graph.layout.entities[Int(ref.entity)].name] else { return nil }
        return model(type, at: ref)
    }

    /// The model of the object with this identifier, if the context has it
    /// and knows its class (a container made from model types does).
    public func model(for persistentModelID: PersistentIdentifier) -> (any PersistentModel)? {
        mergeSavedChanges()
        guard let ref = graph.index[persistentModelID.id], graph.isLive(ref) || tracking.deleted.contains(ref),
            graph.layout.entities[Int(ref.entity)].name == persistentModelID.entityName
        else { return nil }
        return anyModel(at: ref)
    }

    /// The model instance this context has already handed out for an identifier, if any.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        mergeSavedChanges()
        guard let model = typed.registry.model(persistentModelID.id, as: T.self), model.modelContext === self else { return nil }
        return model
    }

    /// Models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { models(tracking.inserted) }
    /// Models that existed at the last save and have been edited since.
    public var changedModelsArray: [any PersistentModel] {
        settleTracking()
        return models(tracking.updated.keys)
    }
    /// Models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { models(tracking.deleted) }

    private func models(_ refs: some Sequence<ObjectRef>) -> [any PersistentModel] {
        refs.sorted { graph.tables[Int($0.entity)].ids[Int($0.row)] < graph.tables[Int($1.entity)].ids[Int($1.row)] }
            .compactMap(anyModel(at:))
    }

    /// Tells the observers of a registered model that one of its properties
    /// changed; typed setters notify themselves, this covers undo, redo and
    /// edits made through the dynamic API.
    func notifyModel(_ ref: ObjectRef, _ name: String, in typed: TypedContextState) {
        guard !typed.registry.isEmpty, let model = typed.registry[graph.tables[Int(ref.entity)].ids[Int(ref.row)]] else { return }
        // A model never read under tracking has no registrar (nor, while it shares
        // its context's backing data, backing data of its own): nobody observes it.
        guard let backing = model.ownBackingData, backing.observation != nil else { return }
        // A typed setter has told this model's observers already.
        if let writer = typed.typedWriter, ObjectIdentifier(backing) == writer { return }
        ModelMetadata.of(type(of: model)).property(named: name)?.notify(model)
    }

    /// Tells the observers of a registered model that any of its properties may
    /// have changed (merging another context's save).
    func notifyModel(_ ref: ObjectRef, in typed: TypedContextState) {
        guard !typed.registry.isEmpty, let model = typed.registry[graph.tables[Int(ref.entity)].ids[Int(ref.row)]],
            model.ownBackingData?.observation != nil
        else { return }
        notifyEveryProperty(of: model)
    }

    /// Tells the observers of `model` that any of its properties may have changed.
    func notifyEveryProperty(of model: any PersistentModel) {
        for property in ModelMetadata.of(type(of: model)).properties { property.notify(model) }
    }

    /// Keeps the values of registered models whose objects a rollback takes away,
    /// so they stay readable, detached, as after a saved delete; returns the
    /// others that have observers (read under observation tracking), whose
    /// objects the new graph may hold changed. One pass over the registered models.
    func detachModels(missingFrom newGraph: ObjectGraph) -> [any PersistentModel] {
        var observed: [any PersistentModel] = []
        for (id, model) in typed.registry.entries {
            if newGraph.index[id] != nil {
                if model.ownBackingData?.observation != nil { observed.append(model) }
            } else if let ref = graph.index[id] {
                model.persistentBackingData.detach(from: self, ref)
            }
        }
        return observed
    }

    // MARK: Inserting

    /// Inserts a model and every uninserted model it is related to, from
    /// either side: those its relationships hold, and those holding it in
    /// theirs (`let folder = Folder(name: "Inbox", notes: [note])`, then
    /// `insert(note)`, inserts the folder, and `note.folder` reads it), and so
    /// on along the chain, as SwiftData does. A model already in this context
    /// is left as it is; one whose object is gone (its insert undone, its
    /// delete saved) becomes a new object. A model outside a document that
    /// held this one is reached only while something else keeps it alive.
    /// One that set the relationship in its initializer is inserted through
    /// another instance of its class, since an initializer's assignment
    /// leaves no way to it: `folder` is then a view of the inserted object,
    /// like the one `note.folder` returns, but not that same instance (as
    /// after an upsert); set later (`folder.notes.append(note)`), it is.
    ///
    /// With a `.unique` attribute whose value a live object already has, or a
    /// `#Unique` constraint whose every member it matches (a to-one
    /// relationship by the model it holds, which is inserted first when new,
    /// or by the object whose relationship is inserting this model), the
    /// existing object is updated instead (SwiftData's upsert): the model
    /// becomes a second view of that object, and fetching returns the model
    /// registered first. The update is made here, not at the next save (where
    /// SwiftData's store resolves it): a fetch right after the insert finds
    /// one object, holding the values inserted last, as the saved document will.
    /// A model whose values the document cannot hold is not inserted: the
    /// error goes to ``autosaveErrorHandler``, and the next ``save()`` throws it.
    /// Undo: part of the current user action, with every model it inserted.
    public func insert<T: PersistentModel>(_ model: T) {
        _ = insertModel(model, refusingForeign: true)
    }

    /// Inserts a model if needed and returns its object's row; then the models
    /// outside a document that held it in a relationship (see
    /// ``UnmanagedState/holders``), as SwiftData inserts both sides.
    ///
    /// `heldBy` names the object whose relationship inserts the model, and
    /// the model's to-one relationship that is its inverse: a uniqueness
    /// constraint over that to-one matches on it (see
    /// ``insertThroughUpsert(_:_:_:heldBy:)``). `refusingForeign`: a model of
    /// another context whose object this one lacks is a refused insert (the
    /// next ``save()`` throws it), as the public ``insert(_:)`` wants; else it
    /// is reported only (a relationship edit refused at the edit).
    @discardableResult
    func insertModel(
        _ model: any PersistentModel,
        heldBy holder: (relationship: String, id: PersistentIdentifier)? = nil,
        refusingForeign: Bool = false
    ) -> ObjectRef? {
        // A model this context made, still sharing its backing data: already here.
        if model._$sharedRow.isShared, let (context, ref) = model.location, context === self,
            graph.isLive(ref) || tracking.deleted.contains(ref)
        {
            return ref
        }
        let backing = model.persistentBackingData
        if let (context, ref) = backing.editableLocation {
            if context === self { return ref }
            // A model of another context: the same object, if this context has it.
            guard let id = backing.identifier, let ref = graph.index[id.id], graph.isLive(ref) else {
                guard let id = backing.identifier else { return nil }
                // A save of this context must not succeed as if it had stored the model.
                if refusingForeign {
                    refuseInsert(.graph(.objectNotFound(id)))
                } else {
                    ModelContainer.report(.graph(.objectNotFound(id)), to: autosaveErrorHandler)
                }
                return nil
            }
            return ref
        }
        // Met again through the relationships of a model its own insert inserts
        // first: that insert links it, once it is a view of its object.
        if backing.isBeingInserted { return nil }
        let holders = backing.takeHolders()
        let type = type(of: model)
        let ref: ObjectRef?
        if let columns = columns(forType: type), columns.insertsDirectly {
            ref = insertDirectly(model, backing, columns)
        } else {
            ref = insertThroughUpsert(model, backing, type, heldBy: holder)
        }
        if let ref, !holders.isEmpty { insertHolders(holders, of: backing, at: ref) }
        return ref
    }

    /// Inserts a model of a class whose entity has a uniqueness constraint,
    /// through the dynamic insert, which updates the object already holding
    /// its key instead (SwiftData's upsert).
    ///
    /// A to-one member of a constraint matches on the object it holds, so a
    /// model outside a document held there is inserted first (it may itself
    /// be an upsert, onto an object other keys already name); a to-one left
    /// `nil` that is the inverse of the relationship inserting the model
    /// (`heldBy`) holds that relationship's object, as it will once linked.
    /// So two new models with the same key, inserted one after the other,
    /// become one object, the later values winning, however their to-ones
    /// were set.
    private func insertThroughUpsert(
        _ model: any PersistentModel, _ backing: BackingData, _ type: any PersistentModel.Type,
        heldBy holder: (relationship: String, id: PersistentIdentifier)?
    ) -> ObjectRef? {
        backing.isBeingInserted = true
        defer { backing.isBeingInserted = false }
        let metadata = ModelMetadata.of(type).properties
        // Read everything while the values still live in the instance.
        var values: [String: Value] = [:]
        var related: [(String, [any PersistentModel]?)] = []
        do {
            for property in metadata {
                switch property.kind {
                case .attribute(_, let read): values[property.name] = try read(model)
                case .relationship(_, _, let read): related.append((property.name, read(model)))
                }
            }
        } catch {
            let mismatch = GraphError.typeMismatch(entity: type.entityName, attribute: "", expected: "encodable values", value: "\(error)")
            refuseInsert(.graph(mismatch))
            return nil
        }
        let members = uniqueToOneMembers(of: type.entityName)
        for (name, models) in related where members.contains(name) {
            if let destination = models?.first, !destination._$sharedRow.isShared, destination.persistentBackingData.context == nil {
                insertModel(destination)
            }
        }
        var keys = uniqueLinks(related, of: type.entityName, members: members)
        if let holder, members.contains(holder.relationship), keys[holder.relationship]?.isEmpty ?? true {
            keys[holder.relationship] = [holder.id]
        }
        let id: PersistentIdentifier
        do { id = try insert(type.entityName, values, related: keys) } catch {
            refuseInsert(error)
            return nil
        }
        backing.context = self
        backing.identifier = id
        backing.snapshot = nil
        backing.dropUnmanagedValues()
        // An upsert keeps the model already registered for the object.
        if typed.registry[id.id] == nil { register(model, id: id.id) }
        guard let ref = graph.index[id.id] else { return nil }
        let links = graph.tables[Int(ref.entity)].links
        for (name, models) in related {
            // An optional to-many set to [] holds an empty collection, not none.
            guard let models, let slot = graph.layout.entities[Int(ref.entity)].linkIndex[name],
                !models.isEmpty || links[slot].isAbsent(Int(ref.row))
            else { continue }
            setRelatedModels(models, for: name, of: ref)
        }
        return ref
    }

    /// Inserts the models outside a document that held the model just
    /// inserted at `ref` (whose backing data is `held`) in a relationship and
    /// hold it still: SwiftData's insert reaches related models from either
    /// side. A holder known only by its backing data (an initializer set the
    /// relationship) is inserted through a second instance of its class over
    /// that backing data, so the instance the program holds is a view of the
    /// inserted object too, as after an upsert.
    private func insertHolders(_ holders: [UnmanagedHolder], of held: BackingData, at ref: ObjectRef) {
        // A holder may be recorded more than once, its instance known to some records only.
        var instances: [ObjectIdentifier: any PersistentModel] = [:]
        for holder in holders {
            guard let backing = holder.backing, let model = holder.model as? any PersistentModel,
                model.persistentBackingData === backing
            else { continue }
            instances[ObjectIdentifier(backing)] = model
        }
        for holder in holders {
            guard let backing = holder.backing, backing.context == nil, backing.snapshot == nil, !backing.isBeingInserted else { continue }
            let known = instances[ObjectIdentifier(backing)]
            let candidates = known.map { [type(of: $0)] } ?? holderTypes(holding: Int(ref.entity), in: holder.relationship)
            // A class the document does not know is not inserted: it could only be refused.
            guard
                let type = candidates.first(where: { type in
                    graph.layout.entityIndex[type.entityName] != nil
                        && backing.holds(held, at: ModelMetadata.of(type).position(named: holder.relationship) ?? -1, named: holder.relationship)
                })
            else { continue }
            func standIn<T: PersistentModel>(_ type: T.Type) -> T { T(backingData: backing) }
            insertModel(known ?? standIn(type))
        }
    }

    /// The classes whose relationship named `relationship` may hold objects
    /// of `entity`: those of the entities at the other end of its links.
    private func holderTypes(holding entity: Int, in relationship: String) -> [any PersistentModel.Type] {
        let layout = graph.layout.entities
        return layout[entity].links.compactMap { link in
            guard layout[link.destination].links[link.inverse].name == relationship else { return nil }
            return core.schema.modelTypes[layout[link.destination].name]
        }
    }

    /// The to-one relationships of `entity` that are members of a unique group.
    private func uniqueToOneMembers(of entity: String) -> Set<String> {
        guard let entityIndex = graph.layout.entityIndex[entity] else { return [] }
        let layout = graph.layout.entities[entityIndex]
        return Set(layout.uniqueGroups.joined().compactMap { layout.linkSlot(ofMember: $0).flatMap { layout.links[$0].name } })
    }

    /// Inserts a model of a class whose entity has no uniqueness constraint (so
    /// no upsert): its values go straight into a new row, by column, with the
    /// checks the dynamic insert makes; then its relationships are linked.
    ///
    /// - Complexity: O(properties), no dictionary and no name look-up (linking
    ///   aside, which ``setRelatedModels(_:for:of:)`` does).
    private func insertDirectly(_ model: any PersistentModel, _ backing: BackingData, _ columns: ModelColumns) -> ObjectRef? {
        let entity = columns.entity
        var values = columns.initialValues
        // (ordinal, slot, models) of the relationships that hold something.
        var related: [(ordinal: Int, slot: Int, models: [any PersistentModel])] = []
        // Read everything while the values still live in the instance: straight
        // from its backing data, converted by the property's type (a property
        // its initializer left unset reads through its getter).
        let steps = columns.insertSteps
        /// Checks an attribute's value and puts it in the row; `false` (reported) when the document cannot hold it.
        func place(_ value: Value, column: Int, ordinal: Int) -> Bool {
            do {
                values[column] = try graph.checked(value, entity: entity, attribute: column)
                if steps[ordinal].checksModelValue {
                    try core.checkModelValue(value, entity: graph.layout.entities[entity].name, attribute: steps[ordinal].name)
                }
                return true
            } catch {
                refuseInsert(.graph(error))
                return false
            }
        }
        for ordinal in steps.indices {
            // The common case first, read without copying the step: a value the
            // initializer set, kept in its stored form.
            let column = steps[ordinal].column
            if column >= 0, let kept = backing.unmanagedStoredValue(at: ordinal) {
                guard place(kept, column: column, ordinal: ordinal) else { return nil }
                continue
            }
            // A to-one left `nil`: nothing to link.
            if column < 0, backing.keepsNoModel(at: ordinal) { continue }
            let step = steps[ordinal]
            switch step.kind {
            case .attribute(let index, let stored, let read, _):
                let value: Value
                do {
                    if let unmanaged = backing.unmanagedValue(at: ordinal, named: step.name), let converted = try stored?(unmanaged) {
                        value = converted
                    } else {
                        value = try read(model)
                    }
                } catch {
                    let mismatch = GraphError.typeMismatch(
                        entity: graph.layout.entities[entity].name, attribute: "",
                        expected: "encodable values", value: "\(error)")
                    refuseInsert(.graph(mismatch))
                    return nil
                }
                guard place(value, column: index, ordinal: ordinal) else { return nil }
            case .relationship(let slot, let fromBacking, let read):
                // `nil` leaves a new row as it is (no object, no collection); `[]`
                // matters only to an optional to-many, which it gives an empty collection.
                let held: [any PersistentModel]?
                if let unmanaged = backing.unmanagedValue(at: ordinal, named: step.name), let models = fromBacking?(unmanaged) {
                    held = models
                } else {
                    held = read(model)
                }
                guard let models = held, !models.isEmpty || graph.tables[entity].links[slot].isOptional else { continue }
                related.append((ordinal, slot, models))
            case .skip:
                continue
            }
        }
        let ref: ObjectRef
        do { ref = try insertRow(entity: entity, values: values) } catch {
            refuseInsert(error)
            return nil
        }
        let id = graph.tables[entity].ids[Int(ref.row)]
        backing.attach(to: self, PersistentIdentifier(entityName: graph.layout.entities[entity].name, id: id), ref, columns)
        register(model, id: id)
        for (ordinal, _, models) in related {
            setRelatedModels(models, for: columns.insertSteps[ordinal].name, of: ref)
        }
        return ref
    }

    /// The to-one relationships among `related` that are members of a unique
    /// group (`members`), for the insert to choose an object to update by:
    /// each holding the object its model already is here, or nothing. A model
    /// not in the document yet is a new object, which no live object can
    /// hold, so it is left out (no match) and linked after the insert like the rest.
    private func uniqueLinks(
        _ related: [(String, [any PersistentModel]?)], of entity: String,
        members: Set<String>
    ) -> [String: [PersistentIdentifier]] {
        guard !members.isEmpty else { return [:] }
        var links: [String: [PersistentIdentifier]] = [:]
        for (name, models) in related where members.contains(name) {
            guard let model = models?.first else {
                links[name] = []
                continue
            }
            let backing = model.persistentBackingData
            guard let id = backing.identifier, backing.context?.sharedDocument === sharedDocument,
                let ref = graph.index[id.id], graph.isLive(ref), graph.identifier(for: ref) == id
            else { continue }
            links[name] = [id]
        }
        return links
    }

    /// Sets a relationship to models, inserting those not yet in the context;
    /// `nil` leaves an optional to-many with no collection.
    ///
    /// Works on rows, not identifiers: setting a to-one (`animal.category = c`)
    /// is O(1) amortized however many models the inverse to-many holds, and
    /// its undo keeps O(1) (see ``editLinks(name:_:)``). Setting a to-many is
    /// O(the old and new lists). A failure (a deleted model, a model of the
    /// wrong type, several models for a to-one) changes nothing and is
    /// reported as an autosave failure is, since a property setter cannot throw.
    func setRelatedModels(_ models: [any PersistentModel]?, for relationship: String, of ref: ObjectRef) {
        let entity = Int(ref.entity)
        let layout = graph.layout.entities[entity]
        guard let slot = layout.linkIndex[relationship] else {
            return ModelContainer.report(.graph(.unknownRelationship(entity: layout.name, relationship: relationship)), to: autosaveErrorHandler)
        }
        let link = layout.links[slot]
        var rows: [Int32] = []
        rows.reserveCapacity(models?.count ?? 0)
        var seen = Set<Int32>()
        // A model this to-many inserts holds this object in the inverse, once
        // linked: a uniqueness constraint over that to-one matches on it from the
        // start. (Not through a one-to-one: linking one displaces the other's
        // holder, so the two never clash.)
        let inverse = graph.layout.entities[link.destination].links[link.inverse]
        let holder = !link.isToMany || inverse.isToMany || !graph.isLive(ref) ? nil : inverse.name.map { ($0, graph.identifier(for: ref)) }
        for model in models ?? [] {
            guard let target = insertModel(model, heldBy: holder) else { continue }
            guard link.accepts(entity: Int(target.entity)), graph.isLive(target) else {
                let error: GraphError =
                    graph.isLive(target)
                    ? .wrongDestination(
                        entity: layout.name, relationship: relationship,
                        expected: graph.layout.entities[link.destination].name, found: graph.identifier(for: target))
                    : .objectNotFound(graph.identifier(for: target))
                return ModelContainer.report(.graph(error), to: autosaveErrorHandler)
            }
            // One model needs no set to stay unique.
            let stored = link.target(target)
            if models?.count == 1 || seen.insert(stored).inserted { rows.append(stored) }
        }
        guard graph.isLive(ref) else {
            return ModelContainer.report(.graph(.objectNotFound(graph.identifier(for: ref))), to: autosaveErrorHandler)
        }
        guard link.isToMany || rows.count <= 1 else {
            return ModelContainer.report(.graph(.tooManyDestinations(entity: layout.name, relationship: relationship)), to: autosaveErrorHandler)
        }
        replaceLinks(ref, slot, with: rows, absent: models == nil, name: "Set \(layout.name).\(relationship)")
    }

    // MARK: Deleting

    /// Deletes a model, applying its relationships' delete rules; SwiftData's `delete(_:)`.
    ///
    /// The model stays readable, with ``PersistentModel/isDeleted`` true and in
    /// ``deletedModelsArray``, until the next save; then it is detached
    /// (`modelContext` is `nil`). A model not in this context is ignored.
    /// Undo: one step restoring it and everything its cascade removed.
    public func delete<T: PersistentModel>(_ model: T) {
        guard let (context, ref) = model.location, context === self, graph.isLive(ref) else { return }
        do { try delete(graph.identifier(for: ref)) } catch { ModelContainer.report(error, to: autosaveErrorHandler) }
    }

    /// Deletes every model of a type matching a predicate (all of them when
    /// `predicate` is `nil`), with delete rules, as one undoable step.
    ///
    /// With `includeSubclasses` (the default, as SwiftData's), the models of
    /// the type's `@Model` subclasses that match go too; without it, only
    /// models of the type itself.
    ///
    /// - Throws: ``ModelError/predicate(_:)`` when the predicate fails to evaluate.
    /// - Complexity: a fetch of the matches, then the delete's (proportional to what it removes).
    /// - Undo: one step restoring everything the delete removed.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = true
        var ids = try fetchIdentifiers(descriptor)
        if !includeSubclasses { ids.removeAll { $0.entityName != T.entityName } }
        guard !ids.isEmpty else { return }
        try delete(ids)
    }

    // MARK: Fetching

    /// The models a descriptor selects, filtered, sorted and windowed.
    ///
    /// Merges what other contexts saved first. The predicate and sort
    /// descriptors are applied to the document's columns, making models only
    /// for the result, when they use persisted attributes of scalar types with
    /// comparisons, `&&`, `||`, `!`, `??`, `contains`, `starts(with:)` and
    /// key paths on those values; anything else (a relationship path, a
    /// computed property, a `Codable` composite) is evaluated on the models by
    /// Foundation. Both give the same result. O(objects of the entity) to
    /// filter, O(m log m) to sort m matches.
    /// - Throws: what evaluating the predicate throws.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        models(T.self, at: try fetchRefs(descriptor, windowed: true))
    }

    /// The models a descriptor selects, made a batch at a time as they are
    /// accessed — SwiftData's `fetch(_:batchSize:)`.
    ///
    /// Selects exactly what ``fetch(_:)`` does, in the same order, but holds
    /// only the result's identifiers (as runs of consecutive numbers when they
    /// have few, else 8 bytes each) and makes models `batchSize` at a time,
    /// keeping the last two batches, so the models alive at once — and the
    /// context's registry of them — are two batches' worth, not the whole
    /// result. The collection is a snapshot of the result; see
    /// ``FetchResultsCollection`` for objects deleted (or taken away by
    /// ``rollback()``) while it is in use.
    /// - Parameters:
    ///   - descriptor: which models, in which order (its limit and offset apply).
    ///   - batchSize: models per batch; 0 or less makes the whole result one
    ///     batch, as Core Data's `fetchBatchSize` of 0 does.
    /// - Throws: what evaluating the predicate throws.
    /// - Complexity: the fetch is ``fetchIdentifiers(_:)-(FetchDescriptor<T>)``'s; each batch then
    ///   costs O(batchSize) when first accessed.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        FetchResultsCollection(models: try resultIdentifiers(descriptor), batchSize: batchSize, context: self)
    }

    /// The identifiers of the models a descriptor selects, as a collection
    /// read in batches — SwiftData's `fetchIdentifiers(_:batchSize:)`.
    ///
    /// The same identifiers, in the same order, as ``fetchIdentifiers(_:)-(FetchDescriptor<T>)``;
    /// a snapshot, like ``fetch(_:batchSize:)``'s result.
    /// - Parameters:
    ///   - descriptor: which models, in which order (its limit and offset apply).
    ///   - batchSize: identifiers per batch; 0 or less: one batch.
    /// - Throws: what evaluating the predicate throws.
    public func fetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>,
        batchSize: Int
    ) throws -> FetchResultsCollection<PersistentIdentifier> {
        FetchResultsCollection(identifiers: try resultIdentifiers(descriptor), entityName: T.entityName, batchSize: batchSize)
    }

    /// The object numbers a batched fetch keeps. A descriptor selecting every
    /// object of the entity as it is now, in the document's order, reads them
    /// straight from the entity's rows: no list of a million rows is made only
    /// to become a few runs of numbers.
    private func resultIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> ResultIdentifiers {
        guard descriptor.predicate == nil, descriptor.sortBy.isEmpty, descriptor.includePendingChanges,
            graph.layout.entityIndex[T.entityName].map({ graph.layout.hierarchies[$0].count == 1 }) ?? true
        else {
            return ResultIdentifiers(try fetchRefs(descriptor, windowed: true), in: graph)
        }
        mergeSavedChanges()
        guard let entity = graph.layout.entityIndex[T.entityName] else { throw ModelError.graph(.unknownEntity(T.entityName)) }
        let table = graph.tables[entity]
        let window = ResultWindow.range(offset: descriptor.fetchOffset, limit: descriptor.fetchLimit, count: table.liveCount)
        var numbers = ResultIdentifiers.Builder(count: window.count)
        var skipped = 0
        var taken = 0
        for row in 0..<table.rowCount where table.isLive[row] {
            if skipped < window.lowerBound {
                skipped += 1
                continue
            }
            guard taken < window.count else { break }
            numbers.append(table.ids[row])
            taken += 1
        }
        return numbers.result
    }

    /// Calls `block` with each model a descriptor selects, in its order —
    /// SwiftData's `enumerate(_:batchSize:allowEscapingMutations:block:)`.
    ///
    /// Models are made one at a time and not kept, so memory stays flat over
    /// large results. An object the block deletes (or whose deletion it
    /// cascades) before it is reached is skipped. SwiftData resets its
    /// context between batches, losing edits unless `allowEscapingMutations`;
    /// Folio's models are views of the document, so edits made in the block
    /// are ordinary undoable edits either way, and both parameters are
    /// accepted for source compatibility.
    /// - Throws: what evaluating the predicate throws, or what `block` throws
    ///   (enumeration stops there).
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000,
        allowEscapingMutations: Bool = false, block: (T) throws -> Void
    ) throws {
        let identifiers = try fetchRefs(descriptor, windowed: true).map { graph.tables[Int($0.entity)].ids[Int($0.row)] }
        for id in identifiers {
            guard let ref = graph.index[id], graph.isLive(ref) else { continue }
            try block(model(T.self, at: ref))
        }
    }

    /// How many models a descriptor selects, ignoring its limit and offset.
    ///
    /// Makes no models when the predicate compiles (see ``fetch(_:)``).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try fetchRefs(descriptor, windowed: false).count
    }

    /// The identifiers of the models a descriptor selects.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let store = core.storeIdentifier
        return try fetchRefs(descriptor, windowed: true).map { graph.identifier(for: $0).inStore(store) }
    }

    private func fetchRefs<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, windowed: Bool) throws -> [ObjectRef] {
        mergeSavedChanges()
        guard let entity = graph.layout.entityIndex[T.entityName] else {
            throw ModelError.graph(.unknownEntity(T.entityName))
        }
        let hierarchy = graph.layout.hierarchies[entity]
        if hierarchy.count > 1 { return try fetchHierarchyRefs(descriptor, entities: hierarchy, windowed: windowed) }
        var refs = candidateRefs(descriptor, entity: entity)
        if descriptor.predicate == nil, descriptor.sortBy.isEmpty {
            return windowed ? window(refs, descriptor) : refs
        }
        // Compiled, the predicate and sort read the graph's columns and make no
        // models; what they cannot compile is evaluated on models by Foundation.
        var sortedRefs: [ObjectRef]?
        do {
            if let predicate = descriptor.predicate {
                graph.rowsVisited += refs.count
                guard let compiled = CompiledModelPredicate(predicate, entity: entity, graph: graph) else { throw RowFallback() }
                refs = try refs.filter(compiled.matches)
            }
            if !descriptor.sortBy.isEmpty {
                guard let sort = CompiledModelSort(descriptor.sortBy, entity: entity, graph: graph) else {
                    return try fetchRefsThroughModels(refs, descriptor, filter: false, windowed: windowed)
                }
                sortedRefs = sort.sorted(refs, graph: graph)
                if sortedRefs == nil { return try fetchRefsThroughModels(refs, descriptor, filter: false, windowed: windowed) }
            }
        } catch is RowFallback {
            return try fetchRefsThroughModels(refs, descriptor, filter: true, windowed: windowed)
        }
        let selected = sortedRefs ?? refs
        return windowed ? window(selected, descriptor) : selected
    }

    /// The rows a fetch of `entity` starts from: its live objects (those a
    /// declared index finds, when the predicate tests one), or those that
    /// existed at the last save when the descriptor leaves pending changes out.
    private func candidateRefs<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Int) -> [ObjectRef] {
        var refs: [ObjectRef] = []
        if descriptor.includePendingChanges, let predicate = descriptor.predicate,
            let candidates = CompiledModelPredicate.indexedRows(predicate, entity: entity, graph: graph)
        {
            // A declared index narrows the rows; the predicate still checks each.
            refs = candidates
        } else if descriptor.includePendingChanges {
            let table = graph.tables[entity]
            refs.reserveCapacity(table.liveCount)
            for row in 0..<table.rowCount where table.isLive[row] { refs.append(ObjectRef(entity: entity, row: row)) }
        } else {
            // The objects that existed at the last save, as they are now.
            let table = baseline.tables[entity]
            for row in 0..<table.rowCount where table.isLive[row] {
                guard let ref = graph.index[table.ids[row]] else { continue }
                refs.append(ref)
            }
        }
        return refs
    }

    /// ``fetchRefs(_:windowed:)`` for an entity with subentities (a model
    /// class with `@Model` subclasses): the objects of every entity of the
    /// hierarchy, the entity's first, then each subentity's in the schema's
    /// order, each filtered by the predicate compiled for its table. A sort
    /// orders them all together, on models; so does a predicate that does not
    /// compile for every table (`$0 is BusinessTrip`, a cast).
    private func fetchHierarchyRefs<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, entities: [Int],
        windowed: Bool
    ) throws -> [ObjectRef] {
        let candidates = entities.map { candidateRefs(descriptor, entity: $0) }
        var refs: [ObjectRef] = []
        if let predicate = descriptor.predicate {
            let compiled = entities.map { CompiledModelPredicate(predicate, entity: $0, graph: graph) }
            do {
                guard compiled.allSatisfy({ $0 != nil }) else { throw RowFallback() }
                for (rows, filter) in zip(candidates, compiled) {
                    graph.rowsVisited += rows.count
                    if let filter { refs += try rows.filter(filter.matches) }
                }
            } catch is RowFallback {
                return try fetchRefsThroughModels(candidates.flatMap { $0 }, descriptor, filter: true, windowed: windowed)
            }
        } else {
            refs = candidates.flatMap { $0 }
        }
        if !descriptor.sortBy.isEmpty {
            return try fetchRefsThroughModels(refs, descriptor, filter: false, windowed: windowed)
        }
        return windowed ? window(refs, descriptor) : refs
    }

    /// Filters (when `filter` is set) and sorts by evaluating the descriptor on
    /// models, Foundation's way: for what the compiled forms do not cover.
    private func fetchRefsThroughModels<T: PersistentModel>(
        _ refs: [ObjectRef], _ descriptor: FetchDescriptor<T>,
        filter: Bool, windowed: Bool
    ) throws -> [ObjectRef] {
        var models = refs.map { model(T.self, at: $0) }
        if filter, let predicate = descriptor.predicate {
            models = try models.filter { try predicate.evaluate($0) }
        }
        if !descriptor.sortBy.isEmpty {
            models.sort(using: descriptor.sortBy)
        }
        let selected = models.compactMap { $0.location?.1 }
        return windowed ? window(selected, descriptor) : selected
    }

    private func window<T>(_ refs: [ObjectRef], _ descriptor: FetchDescriptor<T>) -> [ObjectRef] {
        let window = ResultWindow.range(offset: descriptor.fetchOffset, limit: descriptor.fetchLimit, count: refs.count)
        // The whole list is returned as it is, not copied.
        return window == refs.indices ? refs : Array(refs[window])
    }
}
