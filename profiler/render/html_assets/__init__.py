"""Static assets of the HTML report: the page's script, one file per page part, and report.css.
manifest.json lists them in the order render/html.py inlines them; tests/js loads the scripts
from the same list under node and type-checks them with tsc (every file is `// @ts-check`)."""
