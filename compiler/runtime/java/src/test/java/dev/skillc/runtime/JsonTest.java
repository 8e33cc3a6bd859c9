package dev.skillc.runtime;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** JSON as serde_json prints it (what the parity run compares byte for byte), and as the artifact stores it. */
public class JsonTest {
    @Test
    public void numbersAreWrittenInRyusShortestForms() {
        assertEquals("0.4744", Json.number(0.4744));
        assertEquals("1.0", Json.number(1.0));
        assertEquals("0.0", Json.number(0.0));
        assertEquals("-2.5", Json.number(-2.5));
        assertEquals("0.1", Json.number(0.1));
        assertEquals("0.30000000000000004", Json.number(0.1 + 0.2));
        assertEquals("1e-6", Json.number(1e-6));
        assertEquals("2e-6", Json.number(0.000002));
        assertEquals("0.000012", Json.number(0.000012));
        assertEquals("0.0001", Json.number(0.0001));
        assertEquals("1000000000000000.0", Json.number(1e15));
        assertEquals("1e+16", Json.number(1e16));
        assertEquals("1.2345e+20", Json.number(1.2345e20));
        assertEquals("null", Json.number(Double.NaN));
    }

    @Test
    public void stringsAreEscapedAsSerdeJsonEscapesThem() {
        assertEquals("\"a\\\"b\\\\c\\n\\t\\u0001\\u001f\u007f é 価\"", Json.compact("a\"b\\c\n\t\u0001\u001f\u007f é 価"));
    }

    @Test
    public void prettyOutputIndentsByTwoAndKeepsEmptyListsOnOneLine() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("b", List.of());
        v.put("a", List.of(1L, "x"));
        v.put("c", null);
        v.put("d", new LinkedHashMap<>());
        assertEquals("{\n  \"b\": [],\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"c\": null,\n  \"d\": {}\n}", Json.pretty(v));
        assertEquals("{\"b\":[],\"a\":[1,\"x\"],\"c\":null,\"d\":{}}", Json.compact(v));
    }

    @Test
    public void readingKeepsOrderAndKindsAndRefusesWhatIsNotJson() {
        Object v = Json.parse(" {\"z\": [1, 2.5, -3e2, true, null], \"a\": \"\\u00e9\\n\"} ");
        assertEquals("{\"z\":[1,2.5,-300.0,true,null],\"a\":\"é\\n\"}", Json.compact(v));
        assertEquals(Long.class, ((List<?>) ((Map<?, ?>) v).get("z")).get(0).getClass());
        for (String bad : List.of("", "{", "[1,]x", "{\"a\" 1}", "\"open", "tru", "[1] 2", "[".repeat(200) + "]".repeat(200))) {
            assertThrows(bad, IllegalArgumentException.class, () -> Json.parse(bad));
        }
    }
}
