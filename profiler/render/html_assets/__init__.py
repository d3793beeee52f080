"""Static assets of the HTML report: the page's script, one file per page part (render/html.py
SCRIPTS lists their order; tests/js tests them with node), and report.css; inlined by render/html.py."""
