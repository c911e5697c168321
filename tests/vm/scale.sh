#!/bin/sh
# In the scale VM (bench-scale.sh): the scale bench with 200 disks' worth of block rows.
exec /build/bench/scale_cost -R 10 -d 200
