import socketserver

from relay import settings


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            self.wfile.write(line)


def main():
    with socketserver.ThreadingTCPServer((settings.DEFAULT_HOST, settings.port()), Handler) as srv:
        srv.serve_forever()


if __name__ == "__main__":
    main()
