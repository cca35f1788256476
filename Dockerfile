# The reference server image: one static binary, nothing else. The build
# context is a directory holding this file, the CGO_ENABLED=0 build of
# cmd/pagewalk-reference (the server and nothing else) and an empty data/
# directory (make image prepares it), so building needs no base image and
# no registry.
FROM scratch
COPY pagewalk-reference /pagewalk-reference
COPY --chown=65534:65534 data/ /data/
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/pagewalk-reference", "serve", "--addr", "0.0.0.0:8080", "--log-format", "json"]
CMD ["--db", "/data/pagewalk.db"]
