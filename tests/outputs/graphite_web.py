"""Runs Debian's graphite-web on a private directory: its own settings module, sqlite
database, index and logs, reading the whisper files and the carbon-cache given here, served
by the Python standard library's WSGI server (no Apache, no system state in /var/lib/graphite).

Usage: /usr/bin/python3 graphite_web.py DIR HTTP_PORT WHISPER_DIR CARBONLINK_PORT

Run it with Debian's /usr/bin/python3: graphite-web is installed for that interpreter only.
"""
import os
import sys

directory, http_port, whisper_dir, carbonlink_port = sys.argv[1:5]

# graphite.settings imports the module named by GRAPHITE_SETTINGS_MODULE (default: Debian's
# /etc/graphite/local_settings.py); ours sends every path into DIR.
with open(os.path.join(directory, "test_graphite_settings.py"), "w") as f:
    f.write(f"""SECRET_KEY = 'collectd-ebpf test instance'
STORAGE_DIR = {directory!r}
WHISPER_DIR = {whisper_dir!r}
STANDARD_DIRS = [{whisper_dir!r}]
LOG_DIR = {directory!r}
INDEX_FILE = {os.path.join(directory, 'index')!r}
CARBONLINK_HOSTS = ['127.0.0.1:{carbonlink_port}']
DATABASES = {{'default': {{'NAME': {os.path.join(directory, 'graphite.db')!r},
                           'ENGINE': 'django.db.backends.sqlite3'}}}}
# Django 3.2 warns about graphite-web 1.1's models on every start; nothing to act on.
SILENCED_SYSTEM_CHECKS = ['models.W042']
""")
sys.path.insert(0, directory)
os.environ["GRAPHITE_SETTINGS_MODULE"] = "test_graphite_settings"
os.environ["DJANGO_SETTINGS_MODULE"] = "graphite.settings"

import django  # noqa: E402
from django.core.management import call_command  # noqa: E402

django.setup()
# /metrics/find looks up the default user profile in the database: create its tables
# (a fresh machine has no database at all).
call_command("migrate", run_syncdb=True, verbosity=0, interactive=False)

from wsgiref.simple_server import make_server  # noqa: E402
from graphite.wsgi import application  # noqa: E402

# One request at a time is all a test needs; each request is logged on stderr.
print(f"graphite-web listening on 127.0.0.1:{http_port}", flush=True)
make_server("127.0.0.1", int(http_port), application).serve_forever()
