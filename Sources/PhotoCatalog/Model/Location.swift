/// Where an asset was captured: WGS 84 degrees and optional altitude in metres (photodrop's `CLLocation`).
public struct Location: Sendable, Hashable, Codable {
    /// Degrees north (negative: south), −90…90.
    public var latitude: Double
    /// Degrees east (negative: west), −180…180.
    public var longitude: Double
    /// Metres above sea level, when known.
    public var altitude: Double?

    /// A location from degrees (and metres).
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Whether the coordinates lie in their ranges and are finite.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
            && (altitude?.isFinite ?? true)
    }
}
