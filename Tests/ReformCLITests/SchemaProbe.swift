/// Files with the unknown key `zz_unknown` in every kind of mapping, so that one `reform validate`
/// reports, for each, the keys the loader accepts there; ``SchemaTests`` compares them with the
/// schema's properties at the paired JSON pointer.
enum SchemaProbe {
    static let pipeline = """
        reform: 1
        zz_unknown: 1
        services:
          api:
            base_url: http://127.0.0.1:1
            zz_unknown: 1
            retry: { attempts: 2, zz_unknown: 1 }
            auth: { bearer: token, zz_unknown: 1 }
            interceptors: [ { zz_unknown: 1 }, { sign: { secret: s, header: X-Sig, message: "{method}", zz_unknown: 1 } } ]
          b: { base_url: http://127.0.0.1:1, auth: { basic: { user: u, password: p, zz_unknown: 1 } } }
          c: { base_url: http://127.0.0.1:1, auth: { api_key: { header: X-Key, value: v, zz_unknown: 1 } } }
          d: { base_url: http://127.0.0.1:1, auth: { oauth2: { token_url: http://127.0.0.1:1/t, client_id: i, client_secret: s, zz_unknown: 1 } } }
        managers:
          m:
            service: api
            path: /list
            zz_unknown: 1
            params: { p: { type: int, zz_unknown: 1 }, size: 10 }
            expect: { status: 200, zz_unknown: 1 }
            paging: { policy: page, param: p, stop: { empty_page: true, zz_unknown: 1 }, zz_unknown: 1 }
            budget: { max_pages: 2, zz_unknown: 1 }
            cache: { ttl: 1s, zz_unknown: 1 }
            for_each: { param: p, range: { from: 1, to: 2, zz_unknown: 1 }, zz_unknown: 1 }
          n:
            service: api
            path: /other
            params: { since: { type: string } }
            incremental: { cursor: updated_at, param: since, zz_unknown: 1 }
        reformers:
          r:
            keys: { id: kID }
            map: { id: { path: id, zz_unknown: 1 } }
            zz_unknown: 1
          s:
            steps: [ { flatten: { zz_unknown: 1 } }, { sort: { by: id, zz_unknown: 1 } } ]
        rows:
          row:
            columns: [id]
            zz_unknown: 1
            sort: { by: id, zz_unknown: 1 }
            format: { id: { date: YYYY, zz_unknown: 1 } }
            from: { m: { zz_unknown: 1 } }
        runs:
          default:
            managers: [m]
            zz_unknown: 1
            output: { format: ndjson, zz_unknown: 1 }
          multi:
            managers: [m]
            outputs: [ { format: ndjson, zz_unknown: 1 } ]

        """

    /// Where each unknown key of ``pipeline`` is reported (the loader's words), and the schema's
    /// mapping for it.
    static let pipelinePlaces: [(String, String)] = [
        ("the pipeline", "#"),
        ("service 'api'", "#/$defs/service"),
        ("'retry' of service 'api'", "#/$defs/retry"),
        ("'auth' of service 'api'", "#/$defs/auth"),
        ("'auth.basic' of service 'b'", "#/$defs/auth/properties/basic"),
        ("'auth.api_key' of service 'c'", "#/$defs/auth/properties/api_key"),
        ("'auth.oauth2' of service 'd'", "#/$defs/auth/properties/oauth2"),
        ("an entry of 'interceptors' of service 'api'", "#/$defs/interceptor"),
        ("the sign interceptor of service 'api'", "#/$defs/sign"),
        ("manager 'm'", "#/$defs/manager"),
        ("parameter 'p' of manager 'm'", "#/$defs/param"),
        ("'expect' of manager 'm'", "#/$defs/manager/properties/expect"),
        ("'paging' of manager 'm'", "#/$defs/paging"),
        ("'stop' in 'paging' of manager 'm'", "#/$defs/paging/properties/stop/anyOf/2"),
        ("'budget' of manager 'm'", "#/$defs/manager/properties/budget"),
        ("'cache' of manager 'm'", "#/$defs/manager/properties/cache"),
        ("'for_each' of manager 'm'", "#/$defs/manager/properties/for_each"),
        ("'range' in 'for_each' of manager 'm'", "#/$defs/manager/properties/for_each/properties/range"),
        ("'incremental' of manager 'n'", "#/$defs/manager/properties/incremental"),
        ("reformer 'r'", "#/$defs/reformer"),
        ("'id' in 'map' of reformer 'r'", "#/$defs/rule"),
        ("step 'flatten' of reformer 's'", "#/$defs/step/properties/flatten/anyOf/2"),
        ("step 'sort' of reformer 's'", "#/$defs/sort"),
        ("row shape 'row'", "#/$defs/rowShape"),
        ("'sort' of row shape 'row'", "#/$defs/sort"),
        ("column 'id' in 'format' of row shape 'row'", "#/$defs/valueFormat"),
        ("'from.m' of row shape 'row'", "#/$defs/rowShape/properties/from/additionalProperties"),
        ("run 'default'", "#/$defs/run"),
        ("'output' of run 'default'", "#/$defs/outputSettings"),
        ("an output of run 'multi'", "#/$defs/output"),
    ]

    /// A pipeline for ``testFile`` to point at.
    static let minimalPipeline = """
        reform: 1
        managers:
          m: { records: data }

        """

    static let testFile = """
        pipeline: probe.yaml
        zz_unknown: 1
        tests:
          - name: t
            zz_unknown: 1
            expect:
              zz_unknown: 1
              output: { records: [], zz_unknown: 1 }
              counts: { in: 1, zz_unknown: 1 }
              dead_letter: { count: 0, zz_unknown: 1, records: [ { code: x, zz_unknown: 1 } ] }

        """

    /// Where each unknown key of ``testFile`` is reported, and the schema's mapping for it.
    static let testPlaces: [(String, String)] = [
        ("the test file", "#"),
        ("a test", "#/$defs/test"),
        ("'expect' of test 't'", "#/$defs/expectation"),
        ("'output' of test 't'", "#/$defs/expectation/properties/output/anyOf/1"),
        ("'counts' of test 't'", "#/$defs/expectation/properties/counts"),
        ("'dead_letter' of test 't'", "#/$defs/expectation/properties/dead_letter"),
        ("a dead-letter record of test 't'", "#/$defs/expectation/properties/dead_letter/properties/records/items"),
    ]
}
