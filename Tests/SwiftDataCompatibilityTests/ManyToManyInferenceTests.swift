import Foundation
import FolioTestSupport
import Folio
import Testing

// SwiftData infers the inverse of a one-to-many or one-to-one relationship
// declared without `@Relationship(inverse:)`, but never a many-to-many's: two
// arrays of each other stay two relationships until the app names the inverse.

@Model
final class Song {
    var title: String
    var playlists: [Playlist] = []

    init(title: String) { self.title = title }
}

@Model
final class Playlist {
    var name: String
    var songs: [Song] = []

    init(name: String) { self.name = name }
}

@Model
final class Album {
    var title: String
    var tracks: [Track] = []

    init(title: String) { self.title = title }
}

@Model
final class Track {
    var title: String
    var album: Album?

    init(title: String) { self.title = title }
}

@Suite @MainActor struct ManyToManyInferenceTests {
    @Test func aManyToManyWithoutADeclaredInverseIsNotPaired() throws {
        let directory = try TemporaryFolder()
        let configuration = ModelConfiguration(url: directory.storeURL("Music.store"))
        do {
            let container = try ModelContainer(for: Song.self, Playlist.self, configurations: configuration)
            #expect(container.schema.entitiesByName["Song"]?.relationship(named: "playlists")?.inverse == nil)
            #expect(container.schema.entitiesByName["Playlist"]?.relationship(named: "songs")?.inverse == nil)
            let context = ModelContext(container)
            let song = Song(title: "Blue")
            let playlist = Playlist(name: "Evening")
            context.insert(song)
            context.insert(playlist)
            song.playlists.append(playlist)
            #expect(playlist.songs.isEmpty)
            try context.save()
        }

        let context = ModelContext(try ModelContainer(for: Song.self, Playlist.self, configurations: configuration))
        let song = try #require(try context.fetch(FetchDescriptor<Song>()).first)
        let playlist = try #require(try context.fetch(FetchDescriptor<Playlist>()).first)
        #expect(song.playlists.map(\.name) == ["Evening"])
        #expect(playlist.songs.isEmpty)
        playlist.songs.append(song)
        #expect(song.playlists.count == 1)
    }

    @Test func aOneToManyWithoutADeclaredInverseIsStillPaired() throws {
        let container = try ModelContainer(for: Album.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entitiesByName["Album"]?.relationship(named: "tracks")?.inverse == "album")
        let context = ModelContext(container)
        let album = Album(title: "Kind of Blue")
        context.insert(album)
        let track = Track(title: "So What")
        album.tracks.append(track)
        #expect(track.album === album)
    }
}
