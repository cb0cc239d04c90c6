/// The metadata records inside one file (EXIF, an XMP packet, IPTC-IIM records), merged field by field into
/// ``MediaMetadata`` in the order the Metadata Working Group's guidelines give:
///
/// - capture dates: every one found is offered, and the ``MediaMetadata/CaptureDateSource`` precedence picks (EXIF
///   `DateTimeOriginal`, then XMP's capture or creation date, then EXIF `CreateDate`, then IPTC's, … and EXIF's
///   modification date last of all);
/// - GPS position, the camera, its settings and the lens: EXIF first, then XMP;
/// - title, description, keywords, rating, creator and copyright: XMP first, then IPTC, then EXIF (editors write
///   people's words to XMP and IPTC; EXIF's `ImageDescription` is often a camera's placeholder).
///
/// Fields the container set already (a HEIF's orientation, a movie's make) are left alone. A sidecar, read by the
/// caller, comes over all of these (``MediaMetadata/adoptXMPSidecar(_:)``).
struct EmbeddedMetadata {
    var exif: ExifFields?
    var xmp: XMPMetadata?
    var iptc: IPTCRecords?

    /// The records; a TIFF's own XMP packet and IPTC records (tags 700 and 0x83BB, in `exif`) are read when no
    /// other packet or records are given.
    init(exif: ExifFields? = nil, xmp: XMPMetadata? = nil, iptc: IPTCRecords? = nil) {
        self.exif = exif
        self.xmp = xmp ?? exif?.xmpPacket.flatMap { try? XMPMetadata.parse($0) }
        self.iptc = iptc ?? exif?.iptcRecords.flatMap { IPTCRecords.parse(records: $0[...]) }
    }

    /// Copies what the records say into `metadata`. `orientation: false` leaves the orientation to the container
    /// (HEIF transforms, a JPEG XL codestream).
    func apply(to metadata: inout MediaMetadata, orientation useOrientation: Bool = true) {
        exif?.offerDates(to: &metadata)
        if let gps = xmp?.gpsDate { metadata.recordGPSDate(seconds: gps.timeIntervalSince1970) }
        if let date = xmp?.captureDate {
            metadata.offerCaptureDate(
                seconds: date.timeIntervalSince1970, offset: xmp?.captureTimeZoneOffset, isLocalTime: true,
                source: .xmp)
        }
        if let created = iptc?.created {
            metadata.offerCaptureDate(seconds: created.seconds, offset: created.offset, isLocalTime: true, source: .iptc)
        }
        if useOrientation, metadata.orientation == nil, let orientation = exif?.orientation, (1...8).contains(orientation) {
            metadata.orientation = orientation
        }
        if metadata.location == nil { metadata.location = exif?.location() ?? xmp?.location }
        if let direction = exif?.imageDirection() ?? xmp?.imageDirection, metadata.imageDirection == nil {
            metadata.imageDirection = direction
        }
        if metadata.contentIdentifier == nil { metadata.contentIdentifier = exif?.contentIdentifier }

        if metadata.make == nil { metadata.make = exif?.make ?? xmp?.make }
        if metadata.model == nil { metadata.model = exif?.model ?? xmp?.model }
        guard exif?.hasDetails == true || xmp != nil || iptc != nil else { return }
        // Worked on one value and stored once: each field of `metadata` is a view into its out-of-line box.
        var d = metadata.details
        d.fNumber = d.fNumber ?? exif?.fNumber ?? xmp?.fNumber
        d.exposureTime = d.exposureTime ?? exif?.exposureTime ?? xmp?.exposureTime
        d.iso = d.iso ?? exif?.iso ?? xmp?.iso
        d.focalLength = d.focalLength ?? exif?.focalLength ?? xmp?.focalLength
        d.focalLength35mm = d.focalLength35mm ?? exif?.focalLength35mm.map(Double.init) ?? xmp?.focalLength35mm
        d.flashFired = d.flashFired ?? exif?.flash.map { $0 & 1 == 1 } ?? xmp?.flashFired
        d.lensMake = d.lensMake ?? exif?.lensMake ?? xmp?.lensMake
        d.lensModel = d.lensModel ?? exif?.lensModel ?? xmp?.lensModel
        d.title = d.title ?? xmp?.title ?? iptc?.title ?? exif?.windowsTitle
        d.caption = d.caption ?? xmp?.caption ?? iptc?.caption ?? exif?.imageDescription.flatMap(Self.personalDescription)
        d.rating = d.rating ?? xmp?.rating ?? exif?.rating
        d.artist = d.artist ?? xmp?.creator ?? iptc?.byline ?? exif?.artist
        d.copyright = d.copyright ?? xmp?.rights ?? iptc?.copyright ?? exif?.copyright
        if d.keywords.isEmpty {
            if let keywords = xmp?.keywords, !keywords.isEmpty {
                d.keywords = keywords
            } else if let keywords = iptc?.keywords, !keywords.isEmpty {
                d.keywords = keywords
            } else if let text = exif?.windowsKeywords {
                var seen = Set<String>()
                d.keywords = text.split(separator: ";").map { String($0).trimmingSpaces() }
                    .filter { !$0.isEmpty && seen.insert($0).inserted }
            }
        }
        metadata.details = d
    }

    /// The descriptions cameras write into every photo's EXIF `ImageDescription` instead of leaving it empty.
    static let cameraPlaceholders: Set<String> = [
        "OLYMPUS DIGITAL CAMERA", "SONY DSC", "DIGITAL CAMERA", "DCIM", "DEFAULT", "SAMSUNG", "SAMSUNG CAMERA PICTURES",
        "KONICA MINOLTA DIGITAL CAMERA", "MINOLTA DIGITAL CAMERA", "PENTAX DIGITAL CAMERA", "KODAK DIGITAL STILL CAMERA",
        "EASYSHARE", "LEICA DIGITAL CAMERA", "CAMERA", "IMAGE", "PICTURE", "PHOTO",
    ]

    /// An EXIF description a person wrote, or nil for a camera's placeholder.
    static func personalDescription(_ text: String) -> String? {
        let upper = text.uppercased()
        guard !cameraPlaceholders.contains(upper), !upper.allSatisfy({ $0 == "?" || $0 == " " }) else { return nil }
        return text
    }
}
