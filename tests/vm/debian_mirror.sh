# Sourced (sh): uri_for SUITE prints the first enabled deb source of the system that serves
# SUITE (one-line and deb822 sources lists), empty if none does. fetch-kernels.sh and
# .ci/debian13.sh take Debian's mirror from the system's own configuration with it.
# shellcheck shell=sh
uri_for() {
	{
		# one-line format: deb [options] URI SUITE COMPONENTS...
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2> /dev/null |
			sed 's/\[[^]]*\]//' | awk -v s="$1" '$1 == "deb" && $3 == s { print $2 }'
		# deb822 format: one paragraph per source
		cat /etc/apt/sources.list.d/*.sources 2> /dev/null | awk -v s="$1" '
			BEGIN { RS = ""; FS = "\n" }
			{
				types = suites = uris = enabled = ""
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^Types:/) types = " " substr($i, 7) " "
					if ($i ~ /^Suites:/) suites = " " substr($i, 8) " "
					if ($i ~ /^URIs:/) uris = substr($i, 6)
					if ($i ~ /^Enabled:/) enabled = substr($i, 9)
				}
				if (types ~ / deb / && suites ~ (" " s " ") && enabled !~ /no/) {
					split(uris, u, " "); print u[1]
				}
			}'
	} | head -n 1
}
