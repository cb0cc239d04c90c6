import Foundation

/// The helper's side: reads requests (each with the descriptor of the file to render), answers each with the
/// pictures `render` made or its failure, and returns when photodrop closes the socket.
public enum RenderServer {
    /// What the helper does with one request: the pictures (their bytes in order), or a failure message.
    public typealias Renderer = (RenderRequest, Int32) -> (pictures: [RenderedPicture], failure: String?, warnings: [String])

    /// Serves on `socket` until it closes. Returns the exit status for the helper's `main`.
    public static func serve(socket: Int32, render: Renderer) -> Int32 {
        let channel = RenderChannel(socket: socket)
        while true {
            let message: RenderChannel.Message
            do { message = try channel.receive() } catch .closed { return 0 } catch {
                FileHandle.standardError.write(Data("photodrop-render: \(error)\n".utf8))
                return 2
            }
            defer { if message.descriptor >= 0 { close(message.descriptor) } }
            var response: RenderResponse
            var parts: [Data] = []
            if let request = try? JSONDecoder().decode(RenderRequest.self, from: message.header) {
                response = RenderResponse(id: request.id)
                if message.descriptor < 0 {
                    response.failure = "the request came without the file's descriptor"
                } else {
                    let result = render(request, message.descriptor)
                    response.failure = result.failure
                    response.warnings = result.warnings
                    if result.failure == nil {
                        response.pictures = result.pictures.map {
                            RenderResponse.Picture(mimeType: $0.mimeType, width: $0.width, height: $0.height)
                        }
                        parts = result.pictures.map(\.data)
                    }
                }
            } else {
                response = RenderResponse(id: 0, failure: "a request photodrop-render does not understand")
            }
            do {
                try channel.send(header: try JSONEncoder().encode(response), parts: parts)
            } catch {
                return 0  // photodrop went away
            }
        }
    }
}
