/// What `reform init` writes without `--openapi`: an annotated pipeline over a small product API,
/// two recorded pages of it (so it runs offline at once), its test and the golden output the test
/// compares with. `NAME` in paths and text is the pipeline's name.
package enum StarterFiles {
    /// The files, as paths relative to the output folder and their text, for a pipeline `name`.
    package static func files(name: String) -> [(path: String, text: String)] {
        [
            ("\(name).yaml", pipeline.replacing("NAME", with: name)),
            ("\(name).test.yaml", test.replacing("NAME", with: name)),
            ("fixtures/\(name)/products/001.json", firstPage),
            ("fixtures/\(name)/products/002.json", secondPage),
            ("tests/\(name)/default.ndjson", golden),
        ]
    }

    static let pipeline = """
        # yaml-language-server: $schema=pipeline.schema.json
        # A starter pipeline written by `reform init`: one API (a shop's products, two pages of which are
        # recorded under fixtures/NAME), one reformer that gives the records constant keys, one that picks
        # the cheap ones, and two runs. Every section is explained in docs/pipelines.md (in Reform's
        # repository, and in the docs/ folder of its release bundle). Try:
        #
        #   reform validate NAME.yaml            # every problem as file:line:column
        #   reform run NAME.yaml                 # replays the recorded pages, offline
        #   reform run NAME.yaml --run cheap --format table
        #   reform test NAME.yaml                # NAME.test.yaml: the output against tests/NAME/default.ndjson
        #   reform run NAME.yaml --live          # asks the API itself (point base_url at a real one first)
        #
        # Starting from an API's OpenAPI document instead: reform init --openapi URL_OR_FILE.
        reform: 1
        name: NAME

        # Services: where APIs are (one base URL, or one per --env name), and what every request to
        # them carries: headers, auth (secrets as ${VARIABLES}, never written here), retries, rate limits.
        services:
          shop:
            base_url: { default: "https://shop.example.com", staging: "https://staging.shop.example.com" }
            auth: { bearer: "${SHOP_TOKEN}" }            # read from the environment only for a live request
            retry: { attempts: 3 }                       # 429, 5xx, timeouts and resets, with backoff

        # Managers: one API endpoint each: its params (checked before a request is sent), where the records
        # are in a response, how it pages, and its recorded exchanges (the offline default).
        managers:
          products:
            service: shop
            path: /v1/products
            params:
              category: { enum: [all, books, games], default: all }
              per_page: { type: int, min: 1, max: 100, default: 2 }
            records: data                                # the array inside { "data": [...], "page": 1 }
            paging: { policy: page, param: page, start: 1, size_param: per_page, stop: [empty_page, short_page] }
            fixtures: fixtures/NAME/products             # written by --record, replayed by default

        # Reformers: from landed records to what a consumer needs. A mapping declares constant keys and,
        # per manager, which field fills each; `steps` is a chain of built-in steps (filter, sort, …).
        reformers:
          product:
            keys: { id: kProductKeyID, name: kProductKeyName, price: kProductKeyPrice, tags: kProductKeyTags, label: kProductKeyLabel }
            from:
              products:
                id: id
                name: name
                price: { path: price, convert: double }
                tags: { path: tags, array: join }        # ["a", "b"] -> "a, b"
                label: { template: "{name} ({category?})" }
          cheap:
            steps: [{ filter: "price < 20" }, { sort: { by: price } }]

        # Runs: which managers, with which params, through which reformers, to which outputs
        # (ndjson, csv, json, table, markdown, html files or standard output; SQLite and PostgreSQL tables).
        runs:
          default:
            managers: [products]
            reform: [product]
            output: { format: ndjson }
          cheap:
            managers: [products]
            reform: [product, cheap]
            output: { format: table }

        """

    static let test = """
        # yaml-language-server: $schema=pipeline-tests.schema.json
        # Tests of NAME.yaml, run offline against its fixtures: `reform test NAME.yaml`;
        # `reform test NAME.yaml --update` re-records the golden file after an intended change.
        tests:
          - name: every product lands once, with its keys
            expect:
              output: tests/NAME/default.ndjson
              requests:
                products:
                  - GET /v1/products?category=all&per_page=2&page=1
                  - GET /v1/products?category=all&per_page=2&page=2
              stopped: { products: "short page (1 < 2)" }
              counts: { in: 3, out: 3, rejected: 0 }

        """

    static let firstPage = """
        {
          "request": { "method": "GET", "path": "/v1/products", "query": { "category": "all", "per_page": "2", "page": "1" } },
          "response": {
            "status": 200,
            "headers": { "content-type": "application/json" },
            "body": {
              "data": [
                { "id": 1, "name": "Atlas of Rivers", "price": 24, "category": "books", "tags": ["maps", "gift"] },
                { "id": 2, "name": "Tile Game", "price": 12.5, "category": "games", "tags": [] }
              ],
              "page": 1
            }
          }
        }

        """

    static let secondPage = """
        {
          "request": { "method": "GET", "path": "/v1/products", "query": { "category": "all", "per_page": "2", "page": "2" } },
          "response": {
            "status": 200,
            "headers": { "content-type": "application/json" },
            "body": {
              "data": [
                { "id": 3, "name": "Pocket Puzzle", "price": 7.99, "tags": ["travel"] }
              ],
              "page": 2
            }
          }
        }

        """

    static let golden = """
        {"kProductKeyID":1,"kProductKeyName":"Atlas of Rivers","kProductKeyPrice":24,"kProductKeyTags":"maps, gift","kProductKeyLabel":"Atlas of Rivers (books)"}
        {"kProductKeyID":2,"kProductKeyName":"Tile Game","kProductKeyPrice":12.5,"kProductKeyTags":"","kProductKeyLabel":"Tile Game (games)"}
        {"kProductKeyID":3,"kProductKeyName":"Pocket Puzzle","kProductKeyPrice":7.99,"kProductKeyTags":"travel","kProductKeyLabel":"Pocket Puzzle ()"}

        """
}
