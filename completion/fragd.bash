# bash completion for fragd(8) and fragd-thp-exec(1)       -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Installed as <completionsdir>/fragd, with fragd-thp-exec a symlink to it
# (bash-completion loads a file by the command's name). Needs nothing from
# bash-completion itself: it works when sourced into a plain bash too (the
# test does that: tests/integration/test-completion.sh). The options are those
# of `fragd --help` and `fragd-thp-exec --help`.

# _fragd_cur_prev: sets cur and prev, taking "--opt=value" apart (bash splits
# it at '=' by COMP_WORDBREAKS: "--opt" "=" "value")
_fragd_cur_prev()
{
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
}

_fragd_files()
{
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$1"))
}

_fragd_dirs()
{
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -d -- "$1"))
}

_fragd()
{
	local cur prev
	_fragd_cur_prev
	COMPREPLY=()

	case $prev in
	-c | --config)
		_fragd_files "$cur"
		return
		;;
	--root)
		_fragd_dirs "$cur"
		return
		;;
	--format)
		# status prints text or json; --once also prom
		if [[ " ${COMP_WORDS[*]} " == *" status "* ]]; then
			COMPREPLY=($(compgen -W 'text json' -- "$cur"))
		else
			COMPREPLY=($(compgen -W 'text json prom' -- "$cur"))
		fi
		return
		;;
	--log-level)
		COMPREPLY=($(compgen -W 'debug info notice warning err' -- "$cur"))
		return
		;;
	--page-size)
		COMPREPLY=($(compgen -W '4096 16384 65536' -- "$cur"))
		return
		;;
	--set | --interval)
		# SECTION.KEY=VALUE (see fragd --check-config) or seconds: free text
		return
		;;
	esac

	# the subcommand, if one was given before the word being completed
	local i w sub='' subat=0
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		-c | --config | --root | --format | --log-level | --page-size | --set | --interval)
			((i++))
			# --opt=value: skip the '=' and the value as well
			[[ ${COMP_WORDS[i]} == = ]] && ((i++))
			;;
		-*) ;;
		*)
			sub=$w
			subat=$i
			break
			;;
		esac
	done

	case $sub in
	thp-dropin)
		case $((COMP_CWORD - subat)) in
		1)
			# the unit whose processes get the mode: services systemd knows
			local units
			units=$(systemctl list-unit-files --type=service --no-legend --no-pager 2>/dev/null |
				while read -r w _; do
					# templates (foo@.service) need an instance name: leave them out
					[[ $w == *@.service ]] || printf '%s\n' "$w"
				done)
			COMPREPLY=($(compgen -W "$units" -- "$cur"))
			;;
		2)
			COMPREPLY=($(compgen -W 'never madvise' -- "$cur"))
			;;
		esac
		return
		;;
	status)
		COMPREPLY=($(compgen -W '--format --root --config --set --log-level' -- "$cur"))
		return
		;;
	pause | resume)
		COMPREPLY=($(compgen -W '--root --config --set --log-level' -- "$cur"))
		return
		;;
	'') ;;
	*)
		return
		;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--config --set --root --page-size --dry-run --once
			--format --interval --verbose --log-level --features --restore --check-config
			--quiet-if-clean --help --version' -- "$cur"))
	else
		COMPREPLY=($(compgen -W 'status pause resume thp-dropin' -- "$cur"))
	fi
}

_fragd_thp_exec()
{
	local cur prev
	_fragd_cur_prev
	COMPREPLY=()

	# the command starts at '--' or at the first word that is no option
	# (getopt stops there); complete it and its arguments as bash would
	local i w cmdat=0
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--)
			cmdat=$((i + 1))
			break
			;;
		-m | --mode | --fallback)
			((i++))
			[[ ${COMP_WORDS[i]} == = ]] && ((i++))
			;;
		-*) ;;
		*)
			cmdat=$i
			break
			;;
		esac
	done
	if ((cmdat > 0)); then
		if declare -F _command_offset >/dev/null; then
			_command_offset "$cmdat"   # bash-completion: the command's own completion
		elif ((COMP_CWORD == cmdat)) && [[ $cur != */* ]]; then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			_fragd_files "$cur"
		fi
		return
	fi

	case $prev in
	-m | --mode)
		COMPREPLY=($(compgen -W 'never madvise inherit' -- "$cur"))
		return
		;;
	--fallback)
		COMPREPLY=($(compgen -W 'never' -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--mode --fallback=never --quiet --help --version --' -- "$cur"))
	else
		COMPREPLY=($(compgen -c -- "$cur"))
	fi
}

complete -F _fragd fragd
complete -F _fragd_thp_exec fragd-thp-exec
