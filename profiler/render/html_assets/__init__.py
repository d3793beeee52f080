"""Static assets of the HTML report (report.js, report.css), inlined by render/html.py."""
