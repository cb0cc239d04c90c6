import FoundationEssentials
import PhotodropSystem

/// The helper's side: reads requests (each with the descriptor of the file to render), answers each with the
/// pictures `render` made or its failure, and returns when photodrop closes the socket.
public enum RenderServer {
    /// What the helper does with one request: the pictures (their bytes in order), or a failure message.
    public typealias Renderer = (RenderRequest, FileDescriptor) -> (pictures: [RenderedPicture], failure: String?, warnings: [String])

    /// Serves on `socket` until it closes. Returns the exit status for the helper's `main`.
    ///
    /// `idle` runs once after an answer when no next request has come within `idleAfter`: the time to hand freed
    /// memory back. Doing it after every file instead costs each next file its page faults again (in a batch of JPEG
    /// thumbnails, a quarter of the helper's time went to the kernel).
    public static func serve(
        socket: FileDescriptor, idleAfter: Duration = .milliseconds(500), idle: () -> Void = {}, render: Renderer
    ) -> Int32 {
        let channel = RenderChannel(socket: socket)
        var answered = false
        while true {
            if answered {
                answered = false
                let milliseconds = Int32(idleAfter.components.seconds * 1000 + idleAfter.components.attoseconds / 1_000_000_000_000_000)
                if (try? socket.waitUntilReadable(milliseconds: milliseconds)) == false { idle() }
            }
            let message: RenderChannel.Message
            do { message = try channel.receive() } catch .closed { return 0 } catch {
                try? FileSystem.writeAll("photodrop render-helper: \(error)\n", to: .standardError, path: nil)
                return 2
            }
            var response: RenderResponse
            var parts: [Data] = []
            if let request = try? JSONDecoder().decode(RenderRequest.self, from: message.header) {
                response = RenderResponse(id: request.id)
                if let descriptor = message.descriptor {
                    let result = render(request, descriptor)
                    response.failure = result.failure
                    response.warnings = result.warnings
                    if result.failure == nil {
                        response.pictures = result.pictures.map {
                            RenderResponse.Picture(mimeType: $0.mimeType, width: $0.width, height: $0.height)
                        }
                        parts = result.pictures.map(\.data)
                    }
                } else {
                    response.failure = "the request came without the file's descriptor"
                }
            } else {
                response = RenderResponse(id: 0, failure: "a request the render helper does not understand")
            }
            do {
                try channel.send(header: try JSONEncoder().encode(response), parts: parts)
            } catch {
                return 0  // photodrop went away
            }
            answered = true
        }
    }
}
