"""What a payout file is, for schemathesis (loaded by scripts/fuzz/schemathesis.ts as its hooks).

The payout-file routes take the file's bytes: CSV text or an .xlsx workbook, told apart by the bytes
themselves. JSON Schema cannot say what is inside such a file, and schemathesis, left to itself, sends
`{}` or `0` as the "wrong type" of a text body, which on the wire is just more text: a file the API must
read and report on (a dry run answers 200 with `valid: false`, an upload 422). Schemathesis's way to
describe such content is a strategy per media type (docs: guides/custom-media-types): bodies come from
here in every phase, and every check still runs on every operation.
"""

from hypothesis import strategies as st

import schemathesis

COLUMNS = ["payout_id", "wallet_id", "wallet_name", "personal_id", "amount", "description", "store_id"]

# Cells a finance team writes, right and wrong: a row may be valid or break any rule of the file.
cell = st.one_of(
    st.from_regex(r"\A[a-z0-9-]{1,30}\Z"),
    st.from_regex(r"\A0[0-9]{9}\Z"),
    st.sampled_from(["Nguyễn Văn An", "Trần Thị Bình", "", "1500000", "1,500,000", "-5", "912345678"]),
    st.text(max_size=40),
)
row = st.lists(cell, min_size=len(COLUMNS), max_size=len(COLUMNS))


@st.composite
def payout_csv(draw: st.DrawFn) -> str:
    header = draw(st.one_of(st.just(COLUMNS), st.permutations(COLUMNS), st.lists(cell, min_size=1, max_size=8)))
    separator = draw(st.sampled_from([",", ";", "\t"]))
    rows = draw(st.lists(row, max_size=5))
    lines = [separator.join(header)] + [separator.join(cells) for cells in rows]
    return "\r\n".join(lines) + "\r\n"


# Named functions, not lambdas: hypothesis describes a lambda by parsing its source, which CPython 3.11
# cannot do from two threads at once (`--workers 2` failed with "AST constructor recursion depth mismatch").
def utf8(text: str) -> bytes:
    return text.encode("utf-8")


def zip_signature_then(data: bytes) -> bytes:
    return b"PK\x03\x04" + data


# Any non-empty text is a file to read (an empty body is a request without its file, 400).
text_file = st.one_of(payout_csv(), st.text(min_size=1)).map(utf8)
# A workbook upload may carry any bytes: CSV text, something that starts like a zip but is no workbook, or noise.
binary_file = st.one_of(
    text_file,
    st.binary(max_size=200).map(zip_signature_then),
    st.binary(min_size=1, max_size=200),
)

schemathesis.openapi.media_type("text/csv", text_file)
schemathesis.openapi.media_type(
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", binary_file
)
