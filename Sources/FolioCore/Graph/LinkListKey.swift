/// One object's link list in one relationship slot: the key by which a
/// removal gathers the survivors' lists it must filter, a preview counts the
/// links a delete would cut, and a rebase groups changes per list.
struct LinkListKey: Hashable {
    var ref: ObjectRef
    var slot: Int32
}
