package media.player

import kotlin.random.Random

data class Track(val title: String, val artist: String, val seconds: Int)

class Playlist(private val name: String) {
    private val tracks = mutableListOf<Track>()

    fun add(track: Track): Playlist {
        require(track.seconds > 0) { "Track length must be positive: ${track.title}" }
        tracks += track
        return this
    }

    fun totalDuration(): Int {
        return tracks.sumOf { it.seconds }
    }

    fun shuffled(seed: Long): List<Track> {
        val random = Random(seed)
        return tracks.shuffled(random)
    }

    override fun toString(): String {
        return "$name (${tracks.size} tracks, ${totalDuration() / 60} min)"
    }
}

object PlaylistFormatter {
    fun format(seconds: Int): String {
        val minutes = seconds / 60
        val rest = seconds % 60
        return "%d:%02d".format(minutes, rest)
    }
}

fun List<Track>.byArtist(): Map<String, List<Track>> {
    return groupBy { it.artist }
}
