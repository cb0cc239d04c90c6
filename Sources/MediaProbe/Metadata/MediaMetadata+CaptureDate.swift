import FoundationEssentials

/// Choosing the capture date among the several a file may record, by ``MediaMetadata/CaptureDateSource`` precedence,
/// and giving a floating local time its zone from the file's own GPS time.
extension MediaMetadata {
    /// Records a capture date read from `source` if no better source has given one.
    ///
    /// - Parameters:
    ///   - seconds: the instant as seconds since 1970 when `offset` is known or the source records an instant (GPS, a
    ///     movie header); otherwise the local wall-clock time read as if it were UTC.
    ///   - offset: the recorded UTC offset, seconds east.
    ///   - isLocalTime: whether the source records a local wall-clock time (EXIF, XMP, IPTC, QuickTime metadata, a
    ///     file name) rather than an instant (GPS, a movie header); a local time without an offset is floating.
    mutating func offerCaptureDate(seconds: Double, offset: Int?, isLocalTime: Bool, source: CaptureDateSource) {
        guard seconds.isFinite else { return }
        if let current = captureDateSource, captureDate != nil, current <= source { return }
        captureDate = Date(timeIntervalSince1970: seconds)
        captureDateSource = source
        captureTimeZoneOffset = offset
        captureDateIsFloating = isLocalTime && offset == nil
        settleFloatingZone()
    }

    /// Records the GPS receiver's UTC time (the first one found), which is also the `gps` capture-date candidate and
    /// may give a floating local time its zone.
    mutating func recordGPSDate(seconds: Double) {
        guard gpsDate == nil, seconds.isFinite else { return }
        gpsDate = Date(timeIntervalSince1970: seconds)
        offerCaptureDate(seconds: seconds, offset: nil, isLocalTime: false, source: .gps)
        settleFloatingZone()
    }

    /// A floating local time gets the zone that the difference to the file's GPS UTC time gives, when that difference
    /// is a whole quarter hour (within two minutes, since a GPS fix lags the shutter) of at most 14 hours; otherwise it
    /// stays floating rather than guessed.
    mutating func settleFloatingZone() {
        guard captureDateIsFloating, let local = captureDate?.timeIntervalSince1970,
            let utc = gpsDate?.timeIntervalSince1970
        else { return }
        let difference = local - utc
        let quarters = (difference / 900).rounded()
        guard abs(difference - quarters * 900) <= 120, abs(quarters) <= 56 else { return }
        let offset = Int(quarters) * 900
        captureTimeZoneOffset = offset
        captureDateIsFloating = false
        captureDate = Date(timeIntervalSince1970: local - Double(offset))
    }

    /// Takes the date in a file's name (see ``FileNameDate``) as the capture date when the content records nothing
    /// better (only EXIF's modification date and the file's mtime rank below it). Call it with the name the file was
    /// dropped or imported under; a probe of a descriptor does not know it.
    public mutating func adoptFileNameDate(_ fileName: String) {
        if let current = captureDateSource, captureDate != nil, current < .fileName { return }
        guard let seconds = FileNameDate.localSeconds(in: fileName) else { return }
        offerCaptureDate(seconds: Double(seconds), offset: nil, isLocalTime: true, source: .fileName)
    }

    /// Takes what XMP sidecars say (the user's edits, which come over everything the file records): the first
    /// sidecar's capture date ranks first (``CaptureDateSource/sidecarXMP``), a GPS time may give a floating time its
    /// zone, and a position, title, caption, keywords, rating, creator and rights replace the file's. Where several
    /// sidecars say one thing, the first one's value stays.
    public mutating func adoptXMPSidecars(_ sidecars: [XMPMetadata]) {
        guard var merged = sidecars.first else { return }
        for other in sidecars.dropFirst() { merged.fillMissing(from: other) }
        if let gps = merged.gpsDate { recordGPSDate(seconds: gps.timeIntervalSince1970) }
        if let date = merged.captureDate {
            offerCaptureDate(
                seconds: date.timeIntervalSince1970, offset: merged.captureTimeZoneOffset, isLocalTime: true,
                source: .sidecarXMP)
        }
        if let position = merged.location { location = position }
        title = merged.title ?? title
        caption = merged.caption ?? caption
        if !merged.keywords.isEmpty { keywords = merged.keywords }
        rating = merged.rating ?? rating
        artist = merged.creator ?? artist
        copyright = merged.rights ?? copyright
    }

    /// Takes what an XMP sidecar says; see ``adoptXMPSidecars(_:)``.
    public mutating func adoptXMPSidecar(_ xmp: XMPMetadata) { adoptXMPSidecars([xmp]) }

    /// Takes what a Google Takeout sidecar says: `photoTakenTime` as a UTC instant ranked after the file's own
    /// dates (``CaptureDateSource/takeout``), its position only where the file has none, and its description (the
    /// caption written in Google Photos) over the file's unless `keepCaption` (an XMP sidecar gave one).
    public mutating func adoptTakeoutSidecar(_ takeout: TakeoutMetadata, keepCaption: Bool = false) {
        if let taken = takeout.photoTakenTime {
            offerCaptureDate(seconds: taken.timeIntervalSince1970, offset: nil, isLocalTime: false, source: .takeout)
        }
        if location == nil { location = takeout.location }
        if !keepCaption, let description = takeout.description { caption = description }
    }
}
